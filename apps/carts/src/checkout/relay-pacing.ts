/**
 * How the carts relays (checkout outbox, merge intents) pace their reads, free of framework and
 * driver code (ADR 0060, "The relays' time bound and idle backoff"):
 * - a per-bucket lower time bound, so rows a pass deleted are never read again (their tombstones
 *   stay below the bound), and
 * - an idle backoff, so a relay with nothing to do reads Cassandra every few seconds, not every tick.
 */

/**
 * The lower time bound of each bucket's scan. After a pass over a bucket that started at
 * `scanStartedAt` the bound moves to the oldest of:
 * - every row the pass saw and left in place (an intent still waiting for its LWT or its age),
 * - the last row seen when the page was full (later rows were not seen yet),
 * - `scanStartedAt − lookbackMs`: a row may become visible after a scan that started before it was
 *   acknowledged. Its writer gives it up unless the write was acknowledged within half of
 *   `lookbackMs` after its `created_at` (`writtenInTime`); the other half covers the clock difference
 *   between instances. So a row that can still matter is never below the bound.
 * Before its first pass an instance knows no bound and reads the whole bucket once.
 */
export class ScanWindow {
  private readonly bounds = new Map<number, Date>();

  constructor(private readonly lookbackMs: number) {}

  /** The `created_at >=` bound of the next read of `bucket`; null: read it whole. */
  from(bucket: number): Date | null {
    return this.bounds.get(bucket) ?? null;
  }

  /** Bounds saved by an earlier instance (any instance's bound is safe for all: see `RelayBounds`). */
  restore(saved: ReadonlyMap<number, Date>): void {
    for (const [bucket, bound] of saved) {
      const current = this.bounds.get(bucket)?.getTime() ?? -Infinity;
      this.bounds.set(bucket, new Date(Math.max(current, bound.getTime())));
    }
  }

  /** The current bounds, to be saved. */
  snapshot(): ReadonlyMap<number, Date> {
    return new Map(this.bounds);
  }

  /** Records a pass over `bucket`: what it read (oldest first), whether the page was full, and what it left. */
  passed(
    bucket: number,
    scan: { startedAt: Date; seen: readonly Date[]; pageFull: boolean; kept: readonly Date[] },
  ): void {
    let bound = scan.startedAt.getTime() - this.lookbackMs;
    for (const t of scan.kept) bound = Math.min(bound, t.getTime());
    const last = scan.seen[scan.seen.length - 1];
    if (scan.pageFull && last) bound = Math.min(bound, last.getTime());
    // Never move back: a bound once safe stays safe (rows below it are deleted, new rows come above it).
    const current = this.bounds.get(bucket)?.getTime() ?? -Infinity;
    this.bounds.set(bucket, new Date(Math.max(current, bound)));
  }
}

/** Where a relay's bounds are kept between runs (the `relay_bounds` table). */
export interface BoundsStore {
  load(relay: string): Promise<ReadonlyMap<number, Date>>;
  save(relay: string, bounds: ReadonlyMap<number, Date>): Promise<void>;
}

/**
 * A relay's `ScanWindow`, kept across restarts: without it a restarted instance would read every
 * bucket whole once, through every tombstone of the last `gc_grace_seconds` — at a few hundred
 * checkouts/s beyond Cassandra's failure threshold, so that read would fail on every pass. The bounds
 * are loaded before the first pass and saved after a pass at most once per `saveEveryMs`, and only
 * when rows were deleted since the last save (by the relay, or by a request of this instance): an
 * idle relay writes nothing. A bound computed by any instance is safe for every instance — below
 * it lie only rows deleted, or rows whose writers never act on them — and a save that loses to an
 * older one only makes the next start read a little more.
 */
export class RelayBounds {
  private loaded = false;
  private dirty = false;
  private savedAt = -Infinity;

  constructor(
    private readonly relay: string,
    private readonly store: BoundsStore,
    private readonly window: ScanWindow,
    private readonly saveEveryMs: number,
  ) {}

  /** The `created_at >=` bound of the next read of `bucket` (loads the saved bounds first). */
  async from(bucket: number): Promise<Date | null> {
    if (!this.loaded) {
      this.window.restore(await this.store.load(this.relay));
      this.loaded = true;
    }
    return this.window.from(bucket);
  }

  /**
   * Records a pass over `bucket` that started at `startedAt`, read `rows` (oldest first, at most
   * `pageSize`) and deleted those in `gone`. Rows found are deleted now or soon by their requests:
   * the next save is worth its write.
   */
  passed<R extends { readonly created_at: Date }>(
    bucket: number,
    pass: { startedAt: Date; rows: readonly R[]; pageSize: number; gone: ReadonlySet<R> },
  ): void {
    this.window.passed(bucket, {
      startedAt: pass.startedAt,
      seen: pass.rows.map((r) => r.created_at),
      pageFull: pass.rows.length === pass.pageSize,
      kept: pass.rows.filter((r) => !pass.gone.has(r)).map((r) => r.created_at),
    });
    if (pass.rows.length > 0) this.dirty = true;
  }

  /** Rows of this relay's table were (or are about to be) deleted: the next save is worth its write. */
  deleted(): void {
    this.dirty = true;
  }

  async saveIfDue(now = Date.now()): Promise<void> {
    if (!this.dirty || now - this.savedAt < this.saveEveryMs) return;
    this.dirty = false;
    this.savedAt = now;
    try {
      await this.store.save(this.relay, this.window.snapshot());
    } catch (e) {
      this.dirty = true;
      throw e;
    }
  }
}

/**
 * Whether an intent row may be acted on (its LWT run): its write was acknowledged within half the
 * relays' lookback after its `created_at`. A later acknowledgement may have come after a relay moved
 * its bound past the row, so the writer deletes the row and decides again under a new one.
 */
export function writtenInTime(createdAt: Date, acknowledgedAt: Date, lookbackMs: number): boolean {
  return acknowledgedAt.getTime() - createdAt.getTime() <= lookbackMs / 2;
}

/**
 * Makes a periodic relay cost almost nothing while idle: after k passes in a row that found nothing,
 * only every min(2^k, `maxFactor`)-th tick reads, so an idle relay reads once per `maxFactor`
 * intervals. `wake()` (a local write that may give the relay work) makes the next tick read and
 * resets the backoff; a wake that arrives during a pass is kept, so the next tick reads too.
 */
export class IdleBackoff {
  private idlePasses = 0;
  private skip = 0;
  private woken = false;

  constructor(private readonly maxFactor: number) {}

  wake(): void {
    this.woken = true;
    this.idlePasses = 0;
    this.skip = 0;
  }

  /** One tick: runs `pass` unless backed off; `pass` answers how many rows it found (0: nothing to do). */
  async tick(pass: () => Promise<number>): Promise<void> {
    if (this.skip > 0) {
      this.skip--;
      return;
    }
    this.woken = false;
    const found = await pass();
    this.idlePasses = found > 0 || this.woken ? 0 : this.idlePasses + 1;
    this.skip = this.idlePasses === 0 ? 0 : Math.min(2 ** this.idlePasses, this.maxFactor) - 1;
  }
}

/** Ticks an idle relay waits at most between two reads (the cap of its backoff). */
export const RELAY_IDLE_FACTOR = 8;
