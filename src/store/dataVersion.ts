/**
 * The database remembers which propgraph opened it (table propgraph_version, from
 * 0.2.0 on). At start-up, before any migration runs, a version older than the one
 * recorded, or one that does not know every migration applied, is refused: it would
 * run on tables it does not understand. After the migrations, a new version is
 * recorded and the upgrade logged with both versions and the migrations applied.
 * In the steady state this costs one small query (the version row).
 */
import type { Logger } from 'pino';
import { compareVersions, releaseOfMigrations } from '../domain/releases.js';

/** The one call this module makes on the migration runner's connection. */
interface SqlQueryRunner {
  query(text: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
}

/** The migration that creates propgraph_version: until it is applied there is nothing to read. */
export const VERSION_MIGRATION = '20261206000000_propgraph_version';

/** The data belongs to a newer propgraph than this one; the message names both versions and what to do. */
export class DataVersionError extends Error {}

export async function recordedVersion(conn: SqlQueryRunner, applied: ReadonlySet<string>): Promise<string | null> {
  if (!applied.has(VERSION_MIGRATION)) return null;
  const rows = await conn.query('SELECT version FROM "propgraph_version" ORDER BY id DESC LIMIT 1');
  return rows[0] ? String(rows[0].version) : null;
}

/** Throws DataVersionError when `appVersion` must not open data recorded as `recorded` with migrations `applied`. */
export function refuseNewerData(appVersion: string, recorded: string | null, applied: readonly string[], known: ReadonlySet<string>): void {
  const unknown = applied.filter((name) => !known.has(name)).sort();
  const newer = recorded !== null && compareVersions(recorded, appVersion) > 0;
  if (!newer && unknown.length === 0) return;
  const by = recorded !== null ? `propgraph ${recorded}` : 'a newer propgraph';
  const detail = unknown.length > 0 ? ` (it applied migrations this version does not have: ${unknown.join(', ')})` : '';
  throw new DataVersionError(
    `This database was last opened by ${by}${detail}; this is propgraph ${appVersion}, which cannot open data a newer version migrated. ` +
      `Start ${recorded !== null ? `propgraph ${recorded}` : 'the newer version'} or later on it, or restore a backup made by propgraph ${appVersion} or earlier onto another database (docs/operations.md, "Backup, restore and move").`,
  );
}

/** Records `appVersion` when it is not the version recorded last, and logs what happened. */
export async function recordVersion(
  conn: SqlQueryRunner,
  log: Logger,
  opened: { appVersion: string; recorded: string | null; appliedBefore: readonly string[]; appliedNow: readonly string[] },
): Promise<void> {
  const { appVersion, recorded, appliedBefore, appliedNow } = opened;
  if (recorded === appVersion) return;
  const fromVersion = recorded ?? (appliedBefore.length > 0 ? (releaseOfMigrations(appliedBefore) ?? 'unknown') : null);
  await conn.query('INSERT INTO "propgraph_version" (version, previous_version, migrations) VALUES ($1, $2, $3::jsonb)', [appVersion, fromVersion, JSON.stringify(appliedNow)]);
  if (fromVersion === null) log.info({ toVersion: appVersion, migrations: appliedNow }, 'new database: propgraph version recorded');
  else log.info({ fromVersion, toVersion: appVersion, migrations: appliedNow }, 'propgraph upgraded the database');
}
