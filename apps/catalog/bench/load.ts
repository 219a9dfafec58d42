import { performance } from 'node:perf_hooks';

export interface LoadOptions {
  /** Requests outstanding at once. */
  readonly concurrency: number;
  readonly durationMs: number;
  /** Sequential requests before the timed run (prepared statements, caches, JIT); also the unloaded latency. */
  readonly warmup: number;
}

export interface LoadResult {
  unloaded_p50_ms: number;
  /** Requests that answered with rows: the only ones counted in req_per_s and the latencies. */
  requests: number;
  req_per_s: number;
  p50_ms: number;
  p99_ms: number;
  /** Requests that failed (threw): counted apart, never as throughput. */
  errors: number;
  /** Requests that answered with no rows (a listing or search that found nothing measures nothing). */
  empty: number;
  /** The first failure's message, so a run with errors says why. */
  first_error?: string;
}

/**
 * Runs `op` from `concurrency` loops for `durationMs`. `op` returns how many rows a request got.
 * Only requests that answered with rows count toward the rate and the latencies; failures and
 * empty answers are counted apart (issue 22 item 15), so a broken or empty read side cannot look
 * fast — a failing request is usually the quickest one.
 */
export async function runLoad(op: (i: number) => Promise<number>, o: LoadOptions): Promise<LoadResult> {
  const unloaded: number[] = [];
  for (let i = 0; i < o.warmup; i++) {
    const t = performance.now();
    if ((await op(i).catch(() => 0)) > 0) unloaded.push(performance.now() - t);
  }
  if (o.warmup > 0 && unloaded.length === 0)
    throw new Error('every warm-up request failed or came back empty');
  const latencies: number[] = [];
  let errors = 0;
  let empty = 0;
  let firstError: string | undefined;
  let next = o.warmup;
  const start = performance.now();
  const end = start + o.durationMs;
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (performance.now() < end) {
        const i = next++;
        const t = performance.now();
        let rows: number;
        try {
          rows = await op(i);
        } catch (e) {
          errors++;
          firstError ??= e instanceof Error ? e.message : String(e);
          continue;
        }
        if (rows === 0) empty++;
        else latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsedS = (performance.now() - start) / 1000;
  return {
    unloaded_p50_ms: quantileMs(unloaded, 0.5),
    requests: latencies.length,
    req_per_s: Math.round(latencies.length / elapsedS),
    p50_ms: quantileMs(latencies, 0.5),
    p99_ms: quantileMs(latencies, 0.99),
    errors,
    empty,
    ...(firstError === undefined ? {} : { first_error: firstError.slice(0, 300) }),
  };
}

/** Nearest-rank quantile in ms, two decimals; NaN for no samples (JSON null: nothing measured). */
export function quantileMs(samples: readonly number[], q: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 100) / 100;
}

export interface OfferedLoadOptions {
  /** Requests started per second, on a schedule that does not wait for answers (open loop). */
  readonly ratePerS: number;
  readonly durationMs: number;
  /** Requests outstanding at most; a request due while this many are out is shed (counted, not sent). */
  readonly maxOutstanding: number;
}

export interface OfferedLoadResult {
  offered_per_s: number;
  /** Requests that answered with rows, per second of the run. */
  answered_per_s: number;
  requests: number;
  /** From each request's scheduled start, so time spent queued behind a slow answer is counted. */
  p50_ms: number;
  p99_ms: number;
  errors: number;
  empty: number;
  /** Requests due while `maxOutstanding` were out: the target rate was not sustained. */
  shed: number;
  first_error?: string;
}

/**
 * Offers `ratePerS` requests per second for `durationMs`, whatever the answers do (open loop): the
 * figure "p99 at 2,000 req/s offered". Each latency runs from the request's *scheduled* start, not
 * from when the loop got round to sending it, so a stall shows in the latencies instead of slowing
 * the offered rate down (no coordinated omission). Failed and empty answers are counted apart.
 */
export async function runOfferedLoad(
  op: (i: number) => Promise<number>,
  o: OfferedLoadOptions,
): Promise<OfferedLoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let empty = 0;
  let shed = 0;
  let outstanding = 0;
  let firstError: string | undefined;
  const intervalMs = 1000 / o.ratePerS;
  const total = Math.floor((o.durationMs / 1000) * o.ratePerS);
  const inFlight = new Set<Promise<void>>();
  const launch = (i: number, due: number): void => {
    if (outstanding >= o.maxOutstanding) {
      shed++;
      return;
    }
    outstanding++;
    const p: Promise<void> = op(i)
      .then(
        (rows) => {
          if (rows === 0) empty++;
          else latencies.push(performance.now() - due);
        },
        (e: unknown) => {
          errors++;
          firstError ??= e instanceof Error ? e.message : String(e);
        },
      )
      .finally(() => {
        outstanding--;
        inFlight.delete(p);
      });
    inFlight.add(p);
  };
  const start = performance.now();
  let next = 0;
  while (next < total) {
    // every request due by now starts, then the loop yields (answers come in) until the next is due
    const now = performance.now();
    for (; next < total && start + next * intervalMs <= now; next++) launch(next, start + next * intervalMs);
    if (next < total)
      await new Promise((r) =>
        setTimeout(r, Math.max(0, Math.min(2, start + next * intervalMs - performance.now()))),
      );
  }
  await Promise.all([...inFlight]);
  const elapsedS = (performance.now() - start) / 1000;
  return {
    offered_per_s: o.ratePerS,
    answered_per_s: Math.round(latencies.length / elapsedS),
    requests: latencies.length,
    p50_ms: quantileMs(latencies, 0.5),
    p99_ms: quantileMs(latencies, 0.99),
    errors,
    empty,
    shed,
    ...(firstError === undefined ? {} : { first_error: firstError.slice(0, 300) }),
  };
}
