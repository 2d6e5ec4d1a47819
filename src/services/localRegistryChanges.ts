/**
 * How many property registry changes this process has committed. A search that trusts
 * its cached registry for a while (services/searchRegistry.ts) compares this count, so
 * a change made here is seen by the very next search here; changes made by other
 * processes are seen through the registry's epoch. The write path counts a change once
 * its statement or transaction has committed (services/aspects/pipeline.ts); both are
 * handed the same counter when the services are built.
 */
export class LocalRegistryChanges {
  private committed = 0;

  get count(): number {
    return this.committed;
  }

  /** Counts a committed change to the registry. */
  noteCommitted(): void {
    this.committed += 1;
  }
}
