/**
 * Group commit (ADR 0012 §4, ADR 0015 §1): items handed to `add` are written together by `flush`,
 * one flush at a time. The first item of a quiet moment is flushed at once (no added latency);
 * the items that arrive while a flush is in flight wait for it and go together in the next one, so
 * under load one round trip carries many items and at rest each goes alone. `flush` answers one
 * result per item, in their order; when it fails, every item of that flush gets the error.
 */
export class GroupCommit<T, R = void> {
  private queue: {
    readonly item: T;
    readonly resolve: (r: R) => void;
    readonly reject: (e: unknown) => void;
  }[] = [];
  private busy = false;
  /** Flushes so far and the items they carried: how full the groups were. */
  readonly stats = { flushes: 0, items: 0 };

  constructor(
    private readonly flush: (items: readonly T[]) => Promise<readonly R[]>,
    /** At most this many items per flush; the rest go with the next. */
    private readonly maxItems = Number.POSITIVE_INFINITY,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, this.maxItems);
        this.stats.flushes++;
        this.stats.items += group.length;
        try {
          const results = await this.flush(group.map((g) => g.item));
          for (const [k, g] of group.entries()) g.resolve(results[k] as R);
        } catch (e) {
          for (const g of group) g.reject(e);
        }
      }
    } finally {
      this.busy = false;
    }
  }
}
