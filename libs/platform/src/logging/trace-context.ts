import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export interface Trace {
  readonly correlation_id: string;
  readonly causation_id: string | null;
  /** Id of the message or HTTP request being handled: the causation of what it emits. */
  readonly message_id?: string;
}

const storage = new AsyncLocalStorage<Trace>();

/** Runs fn with the trace attached to every log line and every message it emits. */
export function runWithTrace<T>(trace: Trace, fn: () => T): T {
  return storage.run(trace, fn);
}

export function currentTrace(): Trace | undefined {
  return storage.getStore();
}

/** The trace for a message emitted now: same correlation, caused by what is being handled. */
export function outgoingTrace(): { correlation_id: string; causation_id: string | null } {
  const t = storage.getStore();
  if (!t) return { correlation_id: randomUUID(), causation_id: null };
  return { correlation_id: t.correlation_id, causation_id: t.message_id ?? t.causation_id };
}
