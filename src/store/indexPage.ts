/**
 * What the search indexer reads to build documents (services/searchIndex/documentLoader.ts),
 * in one statement and nothing more: whether each entity exists and when it was created
 * and last written, the latest aspects the types show (their metadata only), and the
 * values it holds with their property's state.
 *
 * The indexer's own statement rather than the entity page's (aspects.ts) and a times
 * query beside it: a migration of 100,000 holders re-indexes every one, and the profile
 * of that run (BENCHMARKS.md, "Migration of a property held by 100,000 datasets") put
 * the driver's row parsing and the garbage it leaves among the server's largest costs.
 * So the times come as epoch milliseconds (float8, parsed as a number) instead of
 * timestamps parsed into Date objects and read back as numbers, the aspects' system
 * metadata (which no document shows) is not read at all, and an entity is one row of
 * facts instead of two, in two statements.
 */
import type { HeldValue } from '../domain/writes/writeState.js';
import { loopTurn } from '../platform/turns.js';
import { heldValueOf, listOf, mapOf } from './aspects.js';
import type { Queryable } from './database.js';
import type { Statement } from './sql.js';

/** One entity as the index sees it. */
export interface IndexPageRow {
  /** Its latest aspects of those named (metadata only), by name. */
  readonly aspects: ReadonlyMap<string, unknown>;
  /** Every value it holds, with its property's state. */
  readonly values: readonly HeldValue[];
  /** When it was created and last written (any aspect's latest version), ms since the epoch. */
  readonly times: { readonly created: number; readonly modified: number };
}

/** The page: the entities that exist (an absent URN has no row: its document is deleted). */
export type IndexPageReader = (urns: readonly string[], aspects: readonly string[]) => Promise<Map<string, IndexPageRow>>;

/** One fact about one entity: its row ('e', with its times), an aspect ('a'), the values of one property ('v'). */
interface FactRow {
  kind: 'e' | 'a' | 'v';
  urn: string;
  /** The aspect's name ('a'), the property's URN ('v'). */
  name: string | null;
  /** The aspect's metadata ('a'), the values held ('v'). */
  body: unknown;
  /** The property's migration ('v', when the row is under an older generation). */
  migration: unknown;
  generation: string | null;
  current_generation: string | null;
  removed: boolean | null;
  /** Epoch milliseconds ('e'). */
  created: number | null;
  modified: number | null;
}

/** Timestamps as epoch milliseconds; created_on is kept to the millisecond (timestamptz(3)), so nothing is lost. */
const INDEX_PAGE_TEXT = `
  SELECT 'e' AS kind, e.urn, NULL::text AS name, NULL::jsonb AS body, NULL::jsonb AS migration, NULL::text AS generation, NULL::text AS current_generation, NULL::boolean AS removed,
         floor(extract(epoch FROM e.created_on) * 1000)::float8 AS created,
         floor(extract(epoch FROM coalesce((SELECT max(a.created_on) FROM aspect a WHERE a.urn = e.urn AND a.version = 0), e.created_on)) * 1000)::float8 AS modified
    FROM entity e WHERE e.urn = ANY($1::text[])
  UNION ALL
  SELECT 'a', a.urn, a.aspect, a.metadata, NULL, NULL, NULL, NULL, NULL, NULL
    FROM aspect a WHERE a.urn = ANY($1::text[]) AND a.version = 0 AND a.aspect = ANY($2::text[])
  UNION ALL
  SELECT 'v', pv.entity_urn, pv.property_urn, pv."values", CASE WHEN pv.generation <> sp.generation THEN sp.migration END,
         pv.generation::text, sp.generation::text, coalesce(sp.removed, false), NULL, NULL
    FROM property_value pv LEFT JOIN structured_property sp ON sp.urn = pv.property_urn
    WHERE pv.entity_urn = ANY($1::text[])`;

export function indexPageReader(db: Queryable): IndexPageReader {
  return async (urns, aspects) => {
    const out = new Map<string, IndexPageRow>();
    if (urns.length === 0) return out;
    const statement: Statement = { name: 'index_page', text: INDEX_PAGE_TEXT, values: [urns, aspects] };
    const rows = await db.query<FactRow>(statement);
    const aspectsOf = new Map<string, Map<string, unknown>>();
    const valuesOf = new Map<string, HeldValue[]>();
    // Rows of 5,000 entities: the rest of the server takes its turns between them.
    for (const r of rows) {
      const wait = loopTurn();
      if (wait) await wait;
      if (r.kind === 'e') out.set(r.urn, { aspects: new Map(), values: [], times: { created: r.created!, modified: r.modified! } });
      else if (r.kind === 'a') mapOf(aspectsOf, r.urn).set(r.name!, r.body);
      else {
        listOf(valuesOf, r.urn).push(heldValueOf(r, r.migration));
      }
    }
    for (const [urn, row] of out) out.set(urn, { ...row, aspects: aspectsOf.get(urn) ?? row.aspects, values: valuesOf.get(urn) ?? row.values });
    return out;
  };
}
