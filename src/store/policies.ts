/**
 * The stored policies: the latest dataHubPolicyInfo of every dataHubPolicy entity
 * (domain/policies/policy.ts), written through the write path like any aspect, and the
 * counter the aspect table's triggers move whenever one changes (migration
 * 20261210000000_policies), so a cached copy is checked with one cheap read.
 */
import type { Queryable } from './database.js';
import { sql } from './sql.js';

export interface StoredPolicy {
  readonly urn: string;
  readonly info: unknown;
  readonly createdOn: Date;
  readonly createdBy: string;
}

/** Every stored policy's latest info, in URN order: reached through the entity table's type index, not a scan of aspects. */
export async function loadStoredPolicies(db: Queryable): Promise<StoredPolicy[]> {
  return db.query<StoredPolicy>(sql`
    SELECT a.urn, a.metadata AS info, a.created_on AS "createdOn", a.created_by AS "createdBy"
    FROM entity e JOIN aspect a ON a.urn = e.urn AND a.aspect = 'dataHubPolicyInfo' AND a.version = 0
    WHERE e.entity_type = 'dataHubPolicy'
    ORDER BY a.urn`);
}

/** Reads the policies' change counter. */
export type PolicyEpochReader = () => Promise<bigint>;

/** The change-counter reader: a prepared statement of its own, as it runs beside many requests. */
export function policyEpochReader(db: Queryable): PolicyEpochReader {
  const statement = { name: 'policy_epoch', text: 'SELECT epoch FROM policy_epoch WHERE id = 1', values: [] };
  return async () => (await db.query<{ epoch: bigint }>(statement))[0]?.epoch ?? 0n;
}
