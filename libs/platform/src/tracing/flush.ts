/** How queued spans are flushed at shutdown, set by startTracing (kept apart so the bootstrap need not load the SDK). */
let flushHook: (() => Promise<void>) | undefined;

export function onTracingFlush(fn: () => Promise<void>): void {
  flushHook = fn;
}

/** Sends the spans still queued (runService calls it when the app shuts down); nothing without tracing. */
export async function flushTracing(): Promise<void> {
  await flushHook?.().catch(() => undefined);
}
