/**
 * A migration that deadlocks with running writes (a rolling upgrade: the old replica
 * still writes while the new one migrates) is applied again, not a failed start. Real
 * PostgreSQL: the migration locks table a, then waits for table b, which another session
 * holds; that session then asks for a, and PostgreSQL aborts the migration. PostgreSQL
 * aborts the session whose deadlock check runs first; the migration waited first, but on
 * a loaded machine the other session's check can still win (CI saw it once), so that
 * session checks only after ten minutes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { applyMigrations, poolRunner } from '../../../src/store/migrate.js';
import { createTestDatabase } from '../../support/postgres.js';
import { postgresAvailableForTests } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';

async function until(condition: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

(postgresAvailableForTests() ? describe : describe.skip)('migrations and running writes', () => {
  let pool: pg.Pool;
  let other: pg.Client;

  beforeAll(async () => {
    const url = await createTestDatabase(process.env.PROPGRAPH_TEST_PG_URL!, `migrate_deadlock_${process.pid}`);
    pool = new pg.Pool({ connectionString: url, max: 3 });
    other = new pg.Client({ connectionString: url });
    await other.connect();
    // Superuser only: the test databases are reached as one.
    await other.query("SET deadlock_timeout = '10min'");
    await pool.query('CREATE TABLE a (id int); CREATE TABLE b (id int); INSERT INTO a VALUES (1); INSERT INTO b VALUES (1)');
  }, 60_000);

  afterAll(async () => {
    await other?.end();
    await pool?.end();
  });

  test('a migration PostgreSQL aborts for a deadlock is applied again', async () => {
    const dir = tempDir('propgraph-migrate-deadlock-');
    mkdirSync(path.join(dir, '20990101000000_both_tables'));
    writeFileSync(path.join(dir, '20990101000000_both_tables', 'migration.sql'), 'ALTER TABLE a ADD COLUMN x int;\nALTER TABLE b ADD COLUMN x int;\n');
    const lines: Array<Record<string, unknown>> = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });

    // The other session holds b, as an old replica's write transaction would.
    await other.query('BEGIN');
    await other.query('LOCK TABLE b IN ROW EXCLUSIVE MODE');
    // upTo: only these migrations, and no version recorded (this database has no version table).
    const migrating = applyMigrations(poolRunner(pool), log, { dir, upTo: '20990101000000_both_tables' });
    // The migration holds a and waits for b...
    await until(async () => {
      const { rows } = await pool.query("SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'b' AND NOT l.granted");
      return rows[0].n > 0;
    }, 'the migration to wait for table b');
    // ...and the other session now asks for a: a cycle. Only the migration is aborted.
    await other.query('SELECT * FROM a');
    await other.query('COMMIT');

    expect(await migrating).toEqual(['20990101000000_both_tables']);
    const retried = lines.filter((l) => l.msg === 'migration aborted by a deadlock with running writes; applying it again');
    expect(retried).toEqual([expect.objectContaining({ migration: '20990101000000_both_tables', attempt: 1 })]);
    const { rows } = await pool.query("SELECT table_name FROM information_schema.columns WHERE column_name = 'x' ORDER BY table_name");
    expect(rows.map((r) => r.table_name)).toEqual(['a', 'b']);
    const recorded = await pool.query("SELECT count(*)::int AS n FROM _prisma_migrations WHERE migration_name = '20990101000000_both_tables' AND finished_at IS NOT NULL");
    expect(recorded.rows[0].n).toBe(1);
  }, 60_000);
});
