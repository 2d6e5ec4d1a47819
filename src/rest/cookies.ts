/**
 * Cookies, read and written by hand, all HttpOnly: the browser session
 * (browserSession.ts), which the authentication hook reads on every route, and the
 * short-lived ones of an OpenID sign-in (signInRoutes.ts), each bound to the one path
 * that reads it and gone minutes after it is set.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface CookieOptions {
  readonly path: string;
  /** Absent: the cookie lasts until the browser's session ends. */
  readonly maxAgeSeconds?: number;
  readonly sameSite: 'Lax' | 'Strict';
  readonly secure: boolean;
}

/** A cookie's value from the request; undefined when absent. Values are base64url or token text: no decoding needed. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

function serialize(name: string, value: string, options: CookieOptions): string {
  const attributes = [`${name}=${value}`, `Path=${options.path}`, ...(options.maxAgeSeconds === undefined ? [] : [`Max-Age=${options.maxAgeSeconds}`]), 'HttpOnly', `SameSite=${options.sameSite}`];
  if (options.secure) attributes.push('Secure');
  return attributes.join('; ');
}

export function setCookie(reply: FastifyReply, name: string, value: string, options: CookieOptions): void {
  const previous = reply.getHeader('set-cookie');
  const list = previous === undefined ? [] : Array.isArray(previous) ? previous.map(String) : [String(previous)];
  reply.header('set-cookie', [...list, serialize(name, value, options)]);
}

export function clearCookie(reply: FastifyReply, name: string, options: Omit<CookieOptions, 'maxAgeSeconds'>): void {
  setCookie(reply, name, '', { ...options, maxAgeSeconds: 0 });
}
