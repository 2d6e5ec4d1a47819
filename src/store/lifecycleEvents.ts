/**
 * The lifecycle events of properties and metadata tests (table lifecycle_event), written
 * by the write path in the same statement as the change (writeApply.ts, deletes.ts,
 * propertyMigrations.ts), read here for the history views, newest first.
 */
import type { Queryable } from './database.js';
import { sql } from './sql.js';

export interface LifecycleRow {
  readonly urn: string;
  readonly entityType: string;
  readonly event: string;
  readonly actor: string;
  readonly via: string | null;
  readonly createdOn: Date;
  readonly detail: Record<string, unknown> | null;
}

export async function lifecycleEventsOf(db: Queryable, urn: string, limit: number): Promise<LifecycleRow[]> {
  return db.query<LifecycleRow>(sql`
    SELECT urn, entity_type AS "entityType", event, actor, via, created_on AS "createdOn", detail FROM lifecycle_event
    WHERE urn = ${urn} ORDER BY created_on DESC, id DESC LIMIT ${limit}`);
}
