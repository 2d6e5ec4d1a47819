/**
 * Whether this version's search indexes are complete (store/indexFormats.ts). While a
 * new index format is being built from the database (a version's first start), the
 * server keeps serving: searches answer from the new indexes as far as they are built,
 * and every answer says so with `X-Search-Index: rebuilding` (rest/searchIndexHeader.ts)
 * and GET /health (docs/operations.md, "Upgrading"). Read at most once a second, in the
 * background: a request never waits for it.
 */
import { outsideTrace } from '../../telemetry/tracing.js';
import type { Db } from '../../store/database.js';
import { databaseNow } from '../../store/changeLog.js';
import { anyEntity, formatBuilt, formatState, registerFormat } from '../../store/indexFormats.js';

const RECHECK_MS = 1000;

export class IndexReadiness {
  private built = true;
  private checkedAt = 0;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    readonly format: string,
  ) {}

  /** The last known answer (refreshed in the background when older than a second). */
  get rebuilding(): boolean {
    // Read during a request's answer: the refresh is background work, kept out of that request's trace.
    if (Date.now() - this.checkedAt > RECHECK_MS) void outsideTrace(() => this.refresh());
    return !this.built;
  }

  /**
   * At start-up, before the server answers: a format this database has not seen is
   * recorded, as built when there is nothing to index (a new database) and as being
   * built otherwise, so the first answers already say so. One small query when known.
   */
  async prepare(): Promise<void> {
    const state = await formatState(this.db, this.format);
    if (state === null) {
      if (await anyEntity(this.db)) await registerFormat(this.db, this.format);
      else await formatBuilt(this.db, this.format, await databaseNow(this.db));
    }
    await this.refresh();
  }

  /**
   * The state read just now by GET /health, in its own statement (store/health.ts: one
   * round trip for every component); `indexBuilt` null when the database does not know the format.
   */
  observed(indexBuilt: boolean | null): { format: string; state: 'ready' | 'rebuilding' } {
    // Unknown yet (the indexer registers the format when it starts): nothing says it is incomplete.
    this.built = indexBuilt !== false;
    this.checkedAt = Date.now();
    return { format: this.format, state: this.built ? 'ready' : 'rebuilding' };
  }

  private refresh(): Promise<void> {
    this.checking ??= formatState(this.db, this.format)
      .then(
        (state) => {
          this.observed(state === null ? null : state.builtOn !== null);
        },
        () => undefined,
      )
      .finally(() => {
        this.checking = undefined;
      });
    return this.checking;
  }
}
