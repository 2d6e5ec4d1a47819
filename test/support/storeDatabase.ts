/**
 * A fresh database for in-process store tests, on the PostgreSQL globalSetup started:
 * opened (and migrated) the way the server opens it, plus a plain pg pool for
 * arranging races and reading what was stored.
 */
import { tmpdir } from 'node:os';
import pg from 'pg';
import { createLogger } from '../../src/platform/logger.js';
import { parseUrn } from '../../src/domain/urn.js';
import { openDatabase, type Database, type Db } from '../../src/store/database.js';
import { writeEntities, type AspectWriteRequest, type WritePath } from '../../src/services/aspects/pipeline.js';
import { LocalRegistryChanges } from '../../src/services/localRegistryChanges.js';
import { NO_WAIT } from '../../src/services/indexWaiter.js';
import { DefaultWriteService, type PlanOutcome, type WriteService } from '../../src/services/writes/writeService.js';
import type { Urn } from '../../src/domain/urn.js';
import { createMigratedDatabase } from './postgres.js';

export interface StoreDatabase {
  readonly db: Db;
  readonly database: Database;
  /** What the write path runs on, as the server passes it, with its own count of registry changes. */
  readonly store: WritePath;
  /** The write entry point over that store (answering at commit: no search index here). */
  readonly writes: WriteService;
  /** A plain connection pool of its own, for arranging races and reading what was stored. */
  readonly pool: pg.Pool;
  query<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

export async function openStoreDatabase(name: string): Promise<StoreDatabase> {
  const databaseUrl = await createMigratedDatabase(process.env.PROPGRAPH_TEST_PG_URL!, `propgraph_${name}_${process.pid}`);
  const database = await openDatabase({ databaseUrl, dataDir: tmpdir(), log: createLogger('silent'), poolSize: 8 });
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  const store = { db: database.db, registryChanges: new LocalRegistryChanges() };
  return {
    db: database.db,
    database,
    store,
    writes: new DefaultWriteService({ db: database.db, log: createLogger('silent'), indexWaiter: NO_WAIT, registryChanges: store.registryChanges, urnNamespace: 'svc' }),
    pool,
    query: async (text, params = []) => (await pool.query(text, params)).rows,
    close: async () => {
      await pool.end();
      await database.close();
    },
  };
}

/** Arranges entities through the write path itself (what is tested is the step under test, not these writes). */
export async function arrange(store: WritePath, writes: Array<{ urn: string; aspects: Record<string, unknown> }>): Promise<void> {
  await writeEntities(
    store,
    writes.map((w) => ({ urn: parseUrn(w.urn), requests: Object.entries(w.aspects).map(([aspect, value]) => ({ aspect, value })) })),
    'urn:li:corpuser:arranger',
    { atomic: true, valueDrops: () => 'allowed', urnNamespace: 'svc' },
  );
}

export const definition = (name: string, extra: Record<string, unknown> = {}) => ({
  qualifiedName: name,
  valueType: 'urn:li:dataType:svc.string',
  entityTypes: ['urn:li:entityType:svc.dataset', 'urn:li:entityType:svc.schemaField'],
  cardinality: 'MULTIPLE',
  ...extra,
});

/** One entity's aspects written through the write entry point as `actor` (with admin scope), all or nothing. */
export async function write(writes: WriteService, urn: Urn, requests: readonly AspectWriteRequest[], actor = 'urn:li:corpuser:writer'): Promise<PlanOutcome> {
  const changes = requests.map((r) => ('value' in r ? { op: 'set' as const, aspect: r.aspect, value: r.value } : { op: 'compute' as const, aspect: r.aspect, compute: r.compute }));
  return (await writes.submit({ actor, scope: 'admin', via: 'system' }, { entities: [{ urn, changes }] })).result;
}
