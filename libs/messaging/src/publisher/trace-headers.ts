import { type Attributes, type Context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { contextFromTraceparent, startSpan, traceparentOf, untraced } from '@mw/platform';

/** A record about to be sent: its topic, the headers it goes out with, and the trace it continues. */
export interface TracedRecord {
  readonly topic: string;
  readonly key: string;
  /** Mutable: `traceparent` is set to the record's producer span. */
  readonly headers: Record<string, string>;
  /** The context the publish continues: a stored traceparent's, or the caller's. */
  readonly parent: Context;
  /** More span attributes (e.g. `mw.outbox`: which outbox the record was stored in). */
  readonly attributes?: Attributes;
}

/** The context a message continues: its stored `traceparent` when it has one, else the active context. */
export function parentOf(traceparent: string | undefined, active: Context): Context {
  const stored = contextFromTraceparent(traceparent);
  return trace.getSpanContext(stored) ? stored : active;
}

/**
 * Sends records each under its own producer span, a child of the trace the record continues
 * (ADR 0014): the record's `traceparent` header names that span, so the consumer continues the same
 * trace. The kafkajs instrumentation cannot do this for a batch — it gives every record of a send
 * one parent (the active context) and overwrites the header — so `send` runs with it silenced.
 * Without tracing the stored traceparent (if any) is sent as it is.
 */
export async function sendTraced<T>(records: readonly TracedRecord[], send: () => Promise<T>): Promise<T> {
  const spans = records.map((r) => {
    const span = startSpan(`send ${r.topic}`, {
      kind: SpanKind.PRODUCER,
      parent: r.parent,
      attributes: { 'messaging.system': 'kafka', 'messaging.destination.name': r.topic, 'messaging.kafka.message.key': r.key, 'messaging.operation.type': 'send', ...r.attributes },
    });
    const tp = traceparentOf(trace.setSpan(r.parent, span));
    if (tp) r.headers['traceparent'] = tp;
    return span;
  });
  try {
    return await untraced(send);
  } catch (e) {
    for (const s of spans) s.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
    throw e;
  } finally {
    for (const s of spans) s.end();
  }
}
