/**
 * A checksum of everything a request could change in the database, for asserting
 * that a refused request changed nothing. Token last-use times are left out: they
 * record that a token was presented, not a change of state.
 */
import type { SqlQueryRunner } from '../../src/store/migrate.js';

const TABLES: Array<[string, string]> = [
  ['entity', 'urn, entity_type'],
  ['aspect', 'urn, aspect, version, metadata::text, system_metadata::text, created_by'],
  ['change_log', 'id, urn, aspect, change_type'],
  ['structured_property', 'urn, search_field, value_type, version, generation, removed'],
  ['property_value', 'entity_urn, property_urn, generation, "values"::text'],
  ['job', 'id, kind, payload::text'],
  ['access_token', 'id, name, scope, token_hash, expires_on, revoked_on'],
];

export async function databaseChecksum(sql: SqlQueryRunner): Promise<string> {
  const parts: string[] = [];
  for (const [table, columns] of TABLES) {
    const rows = await sql.query(`SELECT md5(coalesce(string_agg(row_text, '|' ORDER BY row_text), '')) AS sum, count(*) AS n FROM (SELECT concat_ws(',', ${columns}) AS row_text FROM ${table}) t`);
    parts.push(`${table}:${rows[0]!.n}:${rows[0]!.sum}`);
  }
  return parts.join(' ');
}
