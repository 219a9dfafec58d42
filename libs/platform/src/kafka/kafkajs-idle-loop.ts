/**
 * kafkajs 2.2.4 (the last release) keeps every broker connection's request queue in a 1 ms timer
 * loop while nothing is pending (`RequestQueue.scheduleCheckPendingRequests`: `throttledUntil` is -1,
 * so the delay is negative and each check schedules the next one) — tulios/kafkajs#1556, fixes
 * proposed in #1667/#1768, never released. In this stack that loop was most of an idle service's CPU.
 *
 * The fix, applied once per process to the one `RequestQueue` class every kafkajs client uses
 * (kafkajs stays an external module of the bundles, so `kafkajs` and this path are the same
 * instance): with nothing pending and no throttle in force there is nothing to check later — a
 * request pushed then, or one fulfilled, checks the queue itself. Pending requests and throttles are
 * scheduled exactly as before (including #1532's marginal-throttle case).
 */
interface RequestQueueInternals {
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  pending: unknown[];
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

interface RequestQueueClass {
  prototype: RequestQueueInternals & { __mwIdleLoopFixed?: boolean };
}

/** kafkajs' own delay between checks while requests are pending (src/network/requestQueue). */
const CHECK_PENDING_REQUESTS_INTERVAL = 10;

/** The kafkajs request-queue class (an internal module: its shape is checked before patching). */
export function kafkajsRequestQueue(): RequestQueueClass {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('kafkajs/src/network/requestQueue') as RequestQueueClass;
}

/** Applies the fix (idempotent); answers whether the class had the expected shape. */
export function fixKafkajsIdleLoop(): boolean {
  const proto = kafkajsRequestQueue().prototype;
  if (proto.__mwIdleLoopFixed) return true;
  if (typeof proto.scheduleCheckPendingRequests !== 'function' || typeof proto.checkPendingRequests !== 'function') return false;
  proto.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueueInternals): void {
    if (this.throttleCheckTimeoutId) return;
    let scheduleAt = this.throttledUntil - Date.now();
    if (this.pending.length > 0) scheduleAt = scheduleAt > 0 ? scheduleAt : CHECK_PENDING_REQUESTS_INTERVAL;
    else if (scheduleAt <= 0) return; // nothing to send and no throttle: the next push or response checks
    this.throttleCheckTimeoutId = setTimeout(() => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    }, scheduleAt);
  };
  proto.__mwIdleLoopFixed = true;
  return true;
}
