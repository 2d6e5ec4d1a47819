/**
 * Lifecycle events as people read them (docs/contract.md §14, "Lifecycle in history"):
 * the same words in the CLI's history and the console's timelines. Pure.
 */
import type { LifecycleNote } from './writes/writeDecision.js';

export const LIFECYCLE_EVENT_WORDS: Readonly<Record<LifecycleNote['event'], string>> = {
  created: 'created',
  changed: 'definition changed',
  versionChanged: 'new version',
  migrationStarted: 'migration started',
  migrationFinished: 'migration finished',
  softDeleted: 'soft deleted',
  restored: 'restored',
  hardDeleted: 'deleted permanently',
};

const count = (n: unknown, one: string, many: string) => `${String(n)} ${n === 1 ? one : many}`;

/** What an event's detail says, in words; its facts as they come for an event not known here. */
function detailText(event: string, d: Readonly<Record<string, unknown>>): string {
  if (event === 'versionChanged' && ('from' in d || 'to' in d)) return `from ${String(d.from ?? 'none')} to ${String(d.to ?? 'none')}`;
  if (event === 'migrationStarted' && typeof d.entities === 'number') {
    return `${d.rules ? `${String(d.rules)}: ` : ''}changes the values of ${count(d.entities, 'entity', 'entities')} of the ${String(d.holders ?? '?')} holding any`;
  }
  if (event === 'migrationFinished' && typeof d.entities === 'number') return `${count(d.entities, 'entity', 'entities')} rewritten`;
  return Object.entries(d)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ');
}

/** An event in words, with its detail (`new version (from 20240101000000 to 20250101000000)`). */
export function lifecycleEventText(event: string, detail: Readonly<Record<string, unknown>> | null | undefined): string {
  const words = (LIFECYCLE_EVENT_WORDS as Record<string, string>)[event] ?? event;
  const facts = detail ? detailText(event, detail) : '';
  return facts ? `${words} (${facts})` : words;
}
