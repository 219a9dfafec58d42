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
