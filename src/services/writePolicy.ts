/**
 * Scopes of what the write path finds only once it decides a write, whatever method
 * made it (issue #29): a definition change that drops stored values (a new version of
 * a property that has values) is as destructive as a hard delete, so it needs admin.
 * The write path refuses it for other callers, naming what it would drop. Kept apart
 * from policies.ts (which re-exports it) because the entity service reads it, and
 * policies.ts reads the services' types.
 */
import type { Scope } from './caller.js';

export const destructiveWritePolicy = {
  dropValues: 'admin',
} as const satisfies Record<string, Scope>;
