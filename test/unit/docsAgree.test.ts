/**
 * The documents agree with each other and with the code (issue #27): a setting listed in
 * the README's configuration table and in the guide's has the same default in both, and
 * that default is the one src/platform/config.ts applies.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/platform/config.js';
import { nonEmpty } from '../support/nonEmpty.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `| \`NAME\` | \`default\` | ... |` rows: setting name to its default as written. */
function defaults(file: string): Map<string, string> {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return new Map([...text.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| ([^|]+) \|/gm)].map((m) => [m[1]!, m[2]!.trim()]));
}

test("the README's and the guide's settings tables give the same defaults", () => {
  const readme = defaults('README.md');
  const guide = defaults('docs/guide.md');
  const both = [...guide.keys()].filter((k) => readme.has(k));
  expect(both.length).toBeGreaterThan(10);
  for (const name of nonEmpty(both)) expect({ name, guide: guide.get(name) }).toEqual({ name, guide: readme.get(name) });
});

test('the documented defaults are what the configuration applies', () => {
  const config = loadConfig({});
  const readme = defaults('README.md');
  expect(readme.get('RATE_LIMIT_PER_MINUTE')).toBe(`\`${config.rateLimitPerMinute}\``);
  expect(readme.get('HISTORY_VERSIONS_KEPT')).toBe(`\`${config.historyVersionsKept}\``);
  expect(readme.get('LEASE_SECONDS')).toBe(`\`${config.leaseSeconds}\``);
  expect(defaults('docs/guide.md').get('HISTORY_VERSIONS_KEPT')).toBe('`0`');
});

test('the metadata-test page describes the access tokens that exist, not the ones before they did', () => {
  const page = readFileSync(path.join(ROOT, 'docs/metadata-tests.md'), 'utf8');
  expect(page).not.toMatch(/until token issuance lands/);
  expect(page).toContain('`push: true` needs `write`');
});
