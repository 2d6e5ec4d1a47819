/** Releases and the start-up version check (domain/releases.ts, store/dataVersion.ts's pure rule). */
import { compareVersions, releaseOfMigrations, releasesBefore, RELEASES } from '../../src/domain/releases.js';
import { DataVersionError, refuseNewerData } from '../../src/store/dataVersion.js';
import { listMigrations } from '../../src/store/migrate.js';
import { APP_VERSION } from '../../src/platform/version.js';
import { nonEmpty } from '../support/nonEmpty.js';

test('versions order as semantic versions, a pre-release before its release', () => {
  expect(compareVersions('0.2.0', '0.10.0')).toBeLessThan(0);
  expect(compareVersions('1.0.0', '0.99.99')).toBeGreaterThan(0);
  expect(compareVersions('0.2.0-rc.1', '0.2.0')).toBeLessThan(0);
  expect(compareVersions('0.2.0', '0.2.0')).toBe(0);
  expect(() => compareVersions('0.2', '0.2.0')).toThrow(/not a semantic version/);
});

test('no release is newer than this build; each names a commit, and its last migration exists', () => {
  const migrations = listMigrations().map((m) => m.name);
  for (const r of nonEmpty(RELEASES)) {
    // Equal: this build is that release, or main after it before the next number.
    expect(compareVersions(r.version, APP_VERSION)).toBeLessThanOrEqual(0);
    expect(r.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(migrations).toContain(r.lastMigration);
  }
  expect(releasesBefore(APP_VERSION).map((r) => r.version)).toEqual(
    RELEASES.filter((r) => r.version !== APP_VERSION)
      .map((r) => r.version)
      .sort((a, b) => compareVersions(b, a)),
  );
  expect(releasesBefore('0.2.0').map((r) => r.version)).toEqual(['0.1.0']);
  expect(releasesBefore('0.3.0').map((r) => r.version)).toEqual(['0.2.0', '0.1.0']);
});

test('data without a recorded version is attributed to the release whose last migration it has', () => {
  const first = RELEASES[0]!;
  const upTo = listMigrations().map((m) => m.name).filter((n) => n <= first.lastMigration);
  expect(releaseOfMigrations(upTo)).toBe(first.version);
  expect(releaseOfMigrations(upTo.slice(0, -1))).toBeNull();
  expect(releaseOfMigrations([])).toBeNull();
});

test('a newer recorded version, or a migration this version does not know, is refused naming both versions', () => {
  const known = new Set(['m1', 'm2']);
  expect(() => refuseNewerData('0.2.0', '0.2.0', ['m1'], known)).not.toThrow();
  expect(() => refuseNewerData('0.2.0', '0.1.0', ['m1', 'm2'], known)).not.toThrow();
  expect(() => refuseNewerData('0.2.0', null, [], known)).not.toThrow();
  expect(() => refuseNewerData('0.2.0', '0.3.0', ['m1'], known)).toThrow(DataVersionError);
  expect(() => refuseNewerData('0.2.0', '0.3.0', ['m1'], known)).toThrow(/last opened by propgraph 0\.3\.0; this is propgraph 0\.2\.0/);
  expect(() => refuseNewerData('0.2.0', null, ['m1', 'm9'], known)).toThrow(/migrations this version does not have: m9/);
});
