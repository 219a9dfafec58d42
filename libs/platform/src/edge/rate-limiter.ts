/**
 * Token buckets per caller (user id, guest session or client IP): `perMinute` writes, refilled
 * continuously, bursts up to the same number. In memory, per instance: with N instances behind a
 * balancer a caller gets up to N × the limit (ADR 0007). The oldest idle buckets are dropped past
 * `maxKeys`, so a flood of distinct keys cannot exhaust memory.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly maxKeys = 50_000,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Takes one token; `{ ok: false, retryAfterSeconds }` when the bucket is empty. */
  take(key: string): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const now = this.now();
    const ratePerMs = this.perMinute / 60_000;
    const bucket = this.buckets.get(key);
    const tokens = bucket ? Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * ratePerMs) : this.perMinute;
    // Re-insert so iteration order is least-recently-used first.
    this.buckets.delete(key);
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / ratePerMs / 1000)) };
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    if (this.buckets.size > this.maxKeys) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    return { ok: true };
  }
}
