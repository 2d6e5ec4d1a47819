/** Why the embedded PostgreSQL cannot start (postgres.ts); each message says what to do. */
/** The platform has no PostgreSQL binaries, or the cluster directory cannot be used; the message says what to do. */
export class EmbeddedPostgresUnavailable extends Error {}

/** The cluster was made by another major version of PostgreSQL than the binaries'; `propgraph upgrade-data` migrates it. */
export class PostgresMajorMismatchError extends EmbeddedPostgresUnavailable {
  constructor(
    readonly clusterDir: string,
    readonly dataMajor: number,
    readonly binaryMajor: number,
  ) {
    super(
      dataMajor < binaryMajor
        ? `The embedded PostgreSQL data in ${clusterDir} was written by PostgreSQL ${dataMajor}; this propgraph runs PostgreSQL ${binaryMajor}, which cannot open it. ` +
            `Nothing was changed. Migrate it with \`npx propgraph upgrade-data\` (same DATA_DIR, server stopped): it copies the data into a new PostgreSQL ${binaryMajor} cluster and keeps the old one beside it until you delete it. ` +
            'Back up first if you can (docs/operations.md, "Upgrading PostgreSQL").'
        : `The embedded PostgreSQL data in ${clusterDir} was written by PostgreSQL ${dataMajor}, newer than this propgraph's PostgreSQL ${binaryMajor}, which cannot open it. ` +
            `Nothing was changed. Start a propgraph that bundles PostgreSQL ${dataMajor} (or set EMBEDDED_POSTGRES_BIN_DIR to its binaries).`,
    );
  }
}
