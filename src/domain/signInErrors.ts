/**
 * Why a browser sign-in did not finish, as the callback tells the console (issue #46,
 * item 12). Only a code travels in the address (`#sign-in-error=<code>`), and the
 * console shows that code's own sentence from this table: text in a link is never
 * shown, so nobody can put words on the sign-in page by sending someone a link. The
 * server's full reason (which groups the person has, what the provider said) waits in
 * an HttpOnly cookie only the callback sets, and the console reads it from
 * GET /auth/sign-in-error (rest/signInRoutes.ts). Pure; the console bundles it.
 */
export const SIGN_IN_ERRORS = {
  expired: 'The sign-in expired, or began in another browser. Sign in again.',
  refused: 'The sign-in provider refused the sign-in, or it could not be verified.',
  'not-let-in': 'You signed in at the provider, but you are not let in to this console.',
  unavailable: 'The sign-in provider could not be reached. Try again in a moment.',
  failed: 'The sign-in could not be finished. Sign in again.',
} as const;

export type SignInErrorCode = keyof typeof SIGN_IN_ERRORS;

export function isSignInErrorCode(value: unknown): value is SignInErrorCode {
  return typeof value === 'string' && Object.hasOwn(SIGN_IN_ERRORS, value);
}
