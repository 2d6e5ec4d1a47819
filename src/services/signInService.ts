/**
 * People sign in (issue #30): the console through the authorization code grant with
 * PKCE, `propgraph login` through the device authorization grant, both run by this
 * server against the OpenID provider. A sign-in ends in a propgraph session token for
 * the person (`urn:li:corpuser:<email or sub>`, the scope their groups give them), so
 * every request after it is authenticated like any token request, and everything it
 * writes names the person.
 */
import { ForbiddenError, ValidationError } from '../domain/errors.js';
import { personOfClaims, type Person, type PersonRules } from '../domain/person.js';
import type { AuthorizationChecks, Claims, DeviceAuthorization, OpenIdProvider } from '../identity/openIdProvider.js';
import type { Logger } from '../platform/logger.js';
import type { DefaultTokenService, NewToken } from './tokenService.js';

export interface SignedIn {
  readonly person: Person;
  /** The session token; its secret is in here and nowhere else. */
  readonly token: NewToken;
}

export type DeviceSignIn =
  | { readonly state: 'pending' | 'slow_down' | 'expired' }
  | { readonly state: 'denied'; readonly reason: string }
  | { readonly state: 'signed_in'; readonly signedIn: SignedIn };

export interface SignInDeps {
  readonly provider: OpenIdProvider;
  readonly tokens: DefaultTokenService;
  readonly rules: PersonRules;
  /** Shown to people: "Sign in with <name>". */
  readonly providerName: string;
  readonly sessionHours: number;
  readonly cliSessionDays: number;
  readonly log: Logger;
}

const HOUR_MS = 3_600_000;
/** A device code is at most this long (providers use 32-64 characters). */
const MAX_DEVICE_CODE = 2048;

export class SignInService {
  constructor(private readonly deps: SignInDeps) {}

  get providerName(): string {
    return this.deps.providerName;
  }

  /** The provider's authorization URL for a browser, and the checks its callback needs. */
  startBrowserSignIn(redirectUri: string): Promise<{ url: URL; checks: AuthorizationChecks }> {
    return this.deps.provider.authorizationRequest(redirectUri);
  }

  async finishBrowserSignIn(callbackUrl: URL, checks: AuthorizationChecks): Promise<SignedIn> {
    const claims = await this.deps.provider.redeemCode(callbackUrl, checks);
    return this.signIn(claims, 'console sign-in', this.deps.sessionHours * HOUR_MS, 'console');
  }

  startDeviceSignIn(): Promise<DeviceAuthorization> {
    return this.deps.provider.startDeviceAuthorization();
  }

  /** One poll for a device sign-in; the client waits the interval the provider asked for between polls. */
  async pollDeviceSignIn(deviceCode: unknown, name: unknown): Promise<DeviceSignIn> {
    if (typeof deviceCode !== 'string' || deviceCode === '' || deviceCode.length > MAX_DEVICE_CODE) {
      throw new ValidationError(`deviceCode must be the device code POST /auth/device returned (a non-empty string of at most ${MAX_DEVICE_CODE} characters)`, 'deviceCode');
    }
    if (name !== undefined && name !== null && typeof name !== 'string') throw new ValidationError('name must be a string naming the session, e.g. propgraph login on my-laptop', 'name');
    const label = name ?? 'propgraph login';
    const poll = await this.deps.provider.pollDeviceAuthorization(deviceCode);
    if (poll.state !== 'approved') return poll;
    return { state: 'signed_in', signedIn: await this.signIn(poll.claims, label, this.deps.cliSessionDays * 24 * HOUR_MS, 'cli') };
  }

  private async signIn(claims: Claims, tokenName: string, lifetimeMs: number, via: 'console' | 'cli'): Promise<SignedIn> {
    const outcome = personOfClaims(claims, this.deps.rules);
    if (!outcome.ok) {
      this.deps.log.warn({ sub: claims.sub, via, reason: outcome.reason }, 'sign-in refused');
      throw new ForbiddenError(`Signed in at the provider, but not let in: ${outcome.reason}`);
    }
    const { person } = outcome;
    const token = await this.deps.tokens.issueSignInToken({ person, name: tokenName, lifetimeMs });
    this.deps.log.info({ person: person.urn, scope: person.scope, via, tokenId: token.metadata.id }, 'person signed in');
    return { person, token };
  }
}
