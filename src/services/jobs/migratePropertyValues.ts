/**
 * The migration job (docs/contract.md, "Definitions evolve; values survive"): every
 * entity still holding values under the generation a migration moves from is written
 * again, in chunks, through the one write entry point, in the name of whoever changed
 * the definition (interface `migration`): what it writes is what readers already see,
 * the values read through the migration's rules (domain/writes/valueVisibility.ts), so
 * each change lands in history as that person's, and no reader ever sees a value the
 * definition refuses. When none is left the registry forgets the migration. A crash
 * loses at most the chunk in flight: written entities have left the older generation,
 * so a restart goes on with the rest.
 */
import { ASPECT } from '../../domain/aspects/index.js';
import { activeMigrationOf } from '../../domain/valueMigration.js';
import { parseUrn } from '../../domain/urn.js';
import type { EntityPlan } from '../../domain/writes/plan.js';
import type { Logger } from '../../platform/logger.js';
import type { Db } from '../../store/database.js';
import { finishMigration, migrationOf } from '../../store/propertyMigrations.js';
import { countMigratingHolders, migratingHolders } from '../../store/propertyValues.js';
import type { Caller } from '../caller.js';
import type { WriteService } from '../writes/writeService.js';
import type { JobContext, JobHandler } from './worker.js';

/** Entities written per plan. */
const CHUNK = 500;

export interface MigrationDeps {
  readonly db: Db;
  /**
   * Writes that wait for the search index, as a person's do (docs/contract.md §6): each
   * chunk waits until the index has taken it, so the job never runs ahead of the indexer.
   * Flat out, the job's next chunks, the indexer's documents for the chunks before and
   * Meilisearch indexing them all ran at once on two cores, and /health's p99 was 89-157 ms
   * (docs/decisions.md, "The migration job waits for the search index"). The wait is the
   * write path's own: bounded by INDEX_WAIT_MS, none while the indexer is failing.
   */
  readonly writes: WriteService;
  readonly log: Logger;
}

interface MigrationPayload {
  readonly propertyUrn: string;
  readonly migration: unknown;
  readonly requestedBy?: { readonly actor: string; readonly via: string | null };
}

/** Whether the registry still runs this migration (a hard delete or its own end stops it). */
async function stillMigrating(db: Db, propertyUrn: string, fromGeneration: bigint): Promise<boolean> {
  return activeMigrationOf(await migrationOf(db, propertyUrn))?.fromGeneration === fromGeneration;
}

export function migrationHandler(deps: MigrationDeps): JobHandler {
  return async (ctx: JobContext) => {
    const p = ctx.job.payload as unknown as MigrationPayload;
    const migration = activeMigrationOf(p.migration);
    if (!migration) throw new Error(`job ${ctx.job.id} names no migration`);
    const from = migration.fromGeneration;
    const author: Caller = { actor: p.requestedBy?.actor ?? 'urn:li:corpuser:__propgraph_system', scope: 'write', via: 'migration' };
    const total = ctx.job.total ?? (await countMigratingHolders(deps.db, p.propertyUrn, from));
    let done = ctx.job.total === null ? 0 : ctx.job.done;
    await ctx.progress({ total, done });
    let after = '';
    let refusedInPass = 0;
    for (;;) {
      if (ctx.stopping()) return 'yield';
      if (!(await stillMigrating(deps.db, p.propertyUrn, from))) return 'done';
      const urns = await migratingHolders(deps.db, p.propertyUrn, from, after, CHUNK);
      if (urns.length === 0) {
        if (await finishMigration(deps.db, p.propertyUrn, from, { actor: author.actor, via: 'migration' }, { entities: done })) {
          await ctx.progress({ total, done: total });
          return 'done';
        }
        // Entities the write path refused stay under the older generation: one more pass, then the job fails naming them.
        if (refusedInPass > 0) throw new Error(`${refusedInPass} entities holding values of ${p.propertyUrn} could not be migrated; see the log`);
        after = '';
        refusedInPass = 0;
        continue;
      }
      const entities: EntityPlan[] = urns.map((urn) => ({
        urn: parseUrn(urn),
        changes: [{ op: 'compute', aspect: ASPECT.structuredProperties, compute: (current: unknown) => current ?? { properties: [] }, systemMetadata: { runId: `migration-${ctx.job.id}` } }],
      }));
      const { result } = await deps.writes.submit(author, { entities }, { atomic: false, skipMissing: true });
      const refused = result.entities.filter((e) => e.status === 'refused');
      if (refused.length > 0) deps.log.warn({ propertyUrn: p.propertyUrn, refused: refused.length, first: refused.slice(0, 3).map((e) => ({ urn: e.urn, reason: e.error?.message })) }, 'migration could not rewrite some entities');
      refusedInPass += refused.length;
      after = urns.at(-1)!;
      done += urns.length - refused.length;
      await ctx.progress({ total: Math.max(total, done), done });
    }
  };
}
