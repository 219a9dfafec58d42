export type RateVerdict =
  | { readonly ok: true }
  /** `limited`: this caller's bucket is empty (429); `full`: the table has no room for a new caller (503). */
  | { readonly ok: false; readonly reason: 'limited' | 'full'; readonly retryAfterSeconds: number };

/**
 * Token buckets per key (user id, guest session or client address): `perWindow` takes per
 * `windowMs`, refilled continuously, bursts up to the same number. In memory, per instance: with N
 * instances behind a balancer a caller gets up to N × the limit (ADR 0007).
 *
 * The table is bounded by `maxKeys` and never evicts a bucket that still remembers something: a
 * bucket that has refilled completely is the same as no bucket and is dropped by a sweep (at most
 * one per second); when the table is still full, a *new* key is refused (`full`) — so a flood of
 * fresh keys cannot reset a throttled caller by pushing its bucket out, nor exhaust memory.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private lastSweepAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly perWindow: number,
    private readonly maxKeys = 50_000,
    private readonly now: () => number = () => Date.now(),
    private readonly windowMs = 60_000,
  ) {}

  /** Keys held now (metrics, tests). */
  get size(): number {
    return this.buckets.size;
  }

  /** Takes one token from the key's bucket. */
  take(key: string): RateVerdict {
    const now = this.now();
    const bucket = this.buckets.get(key);
    if (!bucket && this.buckets.size >= this.maxKeys && !this.sweep(now)) {
      return { ok: false, reason: 'full', retryAfterSeconds: this.secondsFor(1) };
    }
    const tokens = bucket ? Math.min(this.perWindow, this.refilled(bucket, now)) : this.perWindow;
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return {
        ok: false,
        reason: 'limited',
        retryAfterSeconds: this.secondsFor(1 - tokens),
      };
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    return { ok: true };
  }

  /** Tokens of a bucket now (not capped). */
  private refilled(bucket: { tokens: number; at: number }, now: number): number {
    return bucket.tokens + ((now - bucket.at) * this.perWindow) / this.windowMs;
  }

  /** Whole seconds (at least 1) until `tokens` have been refilled. */
  private secondsFor(tokens: number): number {
    return Math.max(1, Math.ceil((tokens * this.windowMs) / this.perWindow / 1000));
  }

  /** Drops the buckets that have refilled completely; true when that made room. At most once per second. */
  private sweep(now: number): boolean {
    if (now - this.lastSweepAt < 1000) return false;
    this.lastSweepAt = now;
    for (const [key, b] of this.buckets) {
      if (this.refilled(b, now) >= this.perWindow) this.buckets.delete(key);
    }
    return this.buckets.size < this.maxKeys;
  }
}
