/**
 * propgraph's releases: each version, the commit it was tagged at, and the newest
 * migration it ships. Pure data and rules, read by the start-up version check (which
 * release last opened a database, whether this one may open it) and by the upgrade
 * suite (which commit to build a previous release from, since a clone of main need not
 * hold the tags). A release is added here when it is tagged (CHANGELOG.md, "Releasing").
 */

export interface Release {
  readonly version: string;
  /** The commit the tag `v<version>` points at: an ancestor of main. */
  readonly commit: string;
  /** The newest migration (prisma/migrations) the release applies. */
  readonly lastMigration: string;
}

export const RELEASES: readonly Release[] = [
  { version: '0.1.0', commit: 'aa896e0d25bab78e430c53053489cdb76b08aec4', lastMigration: '20261126000000_read_entity_page' },
  { version: '0.2.0', commit: '6415b3c3e4dbfe992145c742d17223f0fe953ec9', lastMigration: '20261207000000_job_claims_by_kind' },
  { version: '0.3.0', commit: '4dd36c56d4756cedc2a07051b9da51bf65035180', lastMigration: '20261210000000_policies' },
];

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/;

/** Whether `v` is a semantic version (MAJOR.MINOR.PATCH, optionally -pre). */
export function isSemver(v: string): boolean {
  return SEMVER.test(v);
}

/** Orders two semantic versions: negative when a < b, 0 when equal, positive when a > b. A pre-release sorts before its release. */
export function compareVersions(a: string, b: string): number {
  const ma = SEMVER.exec(a);
  const mb = SEMVER.exec(b);
  if (!ma || !mb) throw new Error(`not a semantic version: ${ma ? b : a}`);
  for (let i = 1; i <= 3; i++) {
    const d = Number(ma[i]) - Number(mb[i]);
    if (d !== 0) return d;
  }
  const [pa, pb] = [ma[4], mb[4]];
  if (pa === pb) return 0;
  if (pa === undefined) return 1;
  if (pb === undefined) return -1;
  return pa < pb ? -1 : 1;
}

/**
 * The release that last migrated a database which records no version (data from
 * before 0.2.0, which started recording it): the newest release whose last migration
 * is the newest one applied. Null when no release matches (data of an unreleased
 * build).
 */
export function releaseOfMigrations(applied: readonly string[]): string | null {
  if (applied.length === 0) return null;
  const newest = [...applied].sort().pop()!;
  const matching = RELEASES.filter((r) => r.lastMigration === newest);
  return matching.length > 0 ? matching[matching.length - 1]!.version : null;
}

/** The release `version`, or undefined when it was never released. */
export function findRelease(version: string): Release | undefined {
  return RELEASES.find((r) => r.version === version);
}

/**
 * Releases before `version`, newest first. A build still numbered as the last release
 * (main between a release and the next version's number) is not an upgrade from it.
 */
export function releasesBefore(version: string): Release[] {
  return RELEASES.filter((r) => compareVersions(r.version, version) < 0).sort((a, b) => compareVersions(b.version, a.version));
}
