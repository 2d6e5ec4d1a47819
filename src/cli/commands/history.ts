/**
 * `propgraph history --urn <entity> [--property <name>]` and `history --property <name>`
 * (docs/contract.md §13): who changed which value when, through which interface, before
 * and after, newest first (GET /openapi/v3/history, paged through here).
 */
import { lifecycleEventText } from '../../domain/lifecycleEvents.js';
import { PAGE_LIMITS } from '../../domain/limits.js';
import type { HistoryEntry } from '../../domain/valueHistory.js';
import type { CommandContext } from '../context.js';
import { CliError, EXIT, type ExitCode } from '../errors.js';
import { printTable } from '../table.js';
import { printLine } from '../terminal.js';
import { changeText } from '../valueChanges.js';

export interface HistoryOptions {
  readonly urn?: string;
  readonly property?: string;
  readonly count?: string;
  readonly all?: boolean;
  readonly json?: boolean;
}

const DEFAULT_COUNT = 20;

/** Something that happened to a property or a test as a whole (docs/contract.md §14, "Lifecycle in history"). */
interface LifecycleEvent {
  readonly urn: string;
  readonly event: string;
  readonly time: number;
  readonly actor: string;
  readonly via: string | null;
  readonly detail: Record<string, unknown> | null;
}

export async function history(ctx: CommandContext, options: HistoryOptions): Promise<ExitCode> {
  if (!options.urn && !options.property) throw new CliError('history: name an entity with --urn, a property with --property, or both', EXIT.usage);
  let wanted = DEFAULT_COUNT;
  if (options.all) wanted = Number.POSITIVE_INFINITY;
  else if (options.count !== undefined) {
    wanted = Number(options.count);
    if (!Number.isInteger(wanted) || wanted < 0) throw new CliError(`--count must be a whole number >= 0, got '${options.count}'`, EXIT.usage);
  }
  const http = ctx.api().http;
  const entries: HistoryEntry[] = [];
  const events: LifecycleEvent[] = [];
  let scrollId: string | undefined;
  let more = false;
  while (entries.length < wanted) {
    const count = Math.min(PAGE_LIMITS.maxCount, wanted - entries.length);
    const page = await http.request<{ entries: HistoryEntry[]; events?: LifecycleEvent[]; scrollId?: string }>('GET', http.v3('/history'), {
      query: { urn: options.urn, property: options.property, count, scrollId },
    });
    entries.push(...page.entries);
    events.push(...(page.events ?? []));
    scrollId = page.scrollId;
    more = scrollId !== undefined;
    if (!more) break;
  }
  const out = ctx.terminal.stdout;
  if (options.json) {
    printLine(out, JSON.stringify({ entries, ...(events.length > 0 ? { events } : {}), ...(more ? { more: true } : {}) }, null, 2));
    return EXIT.ok;
  }
  if (entries.length === 0 && events.length === 0) {
    printLine(out, 'No changes of values recorded.');
    return EXIT.ok;
  }
  const showEntity = !options.urn;
  const rows = entries.flatMap((e) =>
    e.changes.map((c) => [new Date(e.time).toISOString(), e.actor, e.via ?? '', ...(showEntity ? [e.urn] : []), changeText(c)]),
  );
  if (rows.length > 0) printTable(out, ['TIME', 'ACTOR', 'VIA', ...(showEntity ? ['ENTITY'] : []), 'CHANGE'], rows);
  if (more) printLine(out, `(newest ${entries.length} writes shown; --count N or --all for more)`);
  // Then the property's (or test's) own story: created, changed, versions, migrations, deletes.
  if (events.length > 0) {
    if (rows.length > 0) printLine(out, '');
    printTable(out, ['TIME', 'ACTOR', 'VIA', 'EVENT'], events.map((e) => [new Date(e.time).toISOString(), e.actor, e.via ?? '', lifecycleEventText(e.event, e.detail)]));
  }
  return EXIT.ok;
}
