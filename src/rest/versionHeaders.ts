/**
 * Versions in HTTP headers (docs/contract.md, "Stale writes"): an aspect's answer carries
 * its version as an `ETag` (`"3"`); a write may name the version it read with `If-Match`
 * (the ETag as sent back) or DataHub's `If-Version-Match` (the number), and is refused
 * with 412 when the aspect has moved on since.
 */
import type { FastifyReply } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { ValidationError } from '../domain/errors.js';

/** The version a write names in its headers; undefined when it names none. */
export function expectedVersionOf(headers: IncomingHttpHeaders): string | undefined {
  const versionMatch = headers['if-version-match'];
  const ifMatch = headers['if-match'];
  const raw = (Array.isArray(versionMatch) ? versionMatch[0] : versionMatch) ?? (Array.isArray(ifMatch) ? ifMatch[0] : ifMatch);
  if (raw === undefined) return undefined;
  const text = raw.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
  if (!/^(-1|\d{1,18})$/.test(text)) {
    throw new ValidationError(`If-Match / If-Version-Match must be the version of the aspect as read (its ETag, e.g. "3", or -1 for an absent aspect), not ${JSON.stringify(raw.slice(0, 40))}`, 'If-Match');
  }
  return text;
}

/** Sets the ETag of an answer about one aspect: its stored version. */
export function setEntityTag(reply: FastifyReply, systemMetadata: Record<string, unknown> | null | undefined): void {
  const version = systemMetadata?.version;
  if (typeof version === 'string' || typeof version === 'number') reply.header('etag', `"${version}"`);
}
