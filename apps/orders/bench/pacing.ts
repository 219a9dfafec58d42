/** How the checkout benchmark drives its checkouts: a closed loop (`pool`) or an open one (`paced`). */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `fn` over `items`, `concurrency` at a time (closed loop: the next starts when one finishes). */
export async function pool<T>(items: readonly T[], concurrency: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/**
 * `fn` over `items` started `rate` per second (open loop), at most `cap` running: an arrival finding
 * `cap` in flight waits for one to finish (the schedule then slips: `confirmed_per_s` below the
 * offered rate says so). The i-th item starts no earlier than i/rate s after the first.
 */
export async function paced<T>(items: readonly T[], rate: number, cap: number, fn: (t: T) => Promise<void>): Promise<void> {
  const started = performance.now();
  const running = new Set<Promise<void>>();
  for (const [i, item] of items.entries()) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    while (running.size >= cap) await Promise.race(running);
    const p: Promise<void> = fn(item).finally(() => running.delete(p));
    running.add(p);
  }
  await Promise.all(running);
}
