import { context, ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';
import { inSpan } from '@mw/platform';
import { recordSpans } from '@mw/testing';
import { toOutboxEntries } from '../outbox/outbox';
import { toRecord } from '../outbox/outbox-batch';
import { parentOf, sendTraced } from './trace-headers';

const exporter = recordSpans();

const A = '00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-1111111111111111-01';
const B = '00-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb-2222222222222222-01';
const envelope = (id: string) => ({ id, type: 'ReserveStock', version: 1, occurred_at: '2026-01-01T00:00:00.000Z', correlation_id: 'c1', causation_id: null, payload: {} });

describe('trace context through the outbox and onto Kafka headers (ADR 0014)', () => {
  it('an outbox entry stores the traceparent of the transition that wrote it, and none outside a span', async () => {
    const msg = { topic: 'inventory.commands.v1', key: 'o1', envelope: envelope('m1') } as never;
    expect(toOutboxEntries([msg])[0]).not.toHaveProperty('traceparent');
    const { entries, ids } = await inSpan('handle CheckoutRequested', { kind: SpanKind.CONSUMER }, async (span) => ({ entries: toOutboxEntries([msg, msg]), ids: span.spanContext() }));
    for (const e of entries) expect(e.traceparent).toBe(`00-${ids.traceId}-${ids.spanId}-01`);
  });

  it('the relay record carries the stored traceparent in its headers (same length as the one the publish span replaces it with)', () => {
    const entry = { id: 'm1', topic: 'inventory.commands.v1', key: 'o1', envelope: JSON.stringify(envelope('m1')), created_at: new Date(), traceparent: A };
    const r = toRecord(entry, { maxRecordBytes: 1_000_000, missingTopics: new Set() });
    if ('code' in r) throw new Error(r.reason);
    expect(r.record.headers['traceparent']).toBe(A);
  });

  it('each record of one batch is published under its own producer span, a child of its own stored trace, named by its header', async () => {
    const records = [
      { topic: 't1', key: 'k1', headers: { traceparent: A } as Record<string, string>, parent: parentOf(A, ROOT_CONTEXT) },
      { topic: 't2', key: 'k2', headers: { traceparent: B } as Record<string, string>, parent: parentOf(B, ROOT_CONTEXT) },
    ];
    let suppressedDuringSend = false;
    await sendTraced(records, async () => {
      suppressedDuringSend = isTracingSuppressed(context.active());
    });
    expect(suppressedDuringSend).toBe(true); // the kafkajs instrumentation cannot overwrite the headers
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(2);
    for (const [i, stored] of [A, B].entries()) {
      const span = spans.find((s) => s.name === `send t${i + 1}`);
      expect(span?.kind).toBe(SpanKind.PRODUCER);
      expect(span?.spanContext().traceId).toBe(stored.slice(3, 35));
      expect(span?.parentSpanContext?.spanId).toBe(stored.slice(36, 52));
      expect(records[i]?.headers['traceparent']).toBe(`00-${stored.slice(3, 35)}-${span?.spanContext().spanId}-01`);
    }
  });

  it('a message without a stored context continues the caller’s trace; a failed send marks the spans', async () => {
    await inSpan('POST /carts/:id/checkout', { kind: SpanKind.SERVER }, async (request) => {
      const records = [{ topic: 't', key: 'k', headers: {} as Record<string, string>, parent: parentOf(undefined, context.active()) }];
      await expect(sendTraced(records, () => Promise.reject(new Error('broker down')))).rejects.toThrow('broker down');
      expect(records[0]?.headers['traceparent']?.slice(3, 35)).toBe(request.spanContext().traceId);
    });
    const send = exporter.getFinishedSpans().find((s) => s.name === 'send t');
    expect(send?.status.code).toBe(2);
  });
});
