import pino from 'pino';
import { createMessage } from '@mw/contracts';
import { outgoingTrace } from '@mw/platform';
import { recordSpans } from '@mw/testing';
import { toOutboxEntries } from '../outbox/outbox';
import { KafkaPublisher } from '../publisher/publisher';
import { ConsumerRunner, InboundRecord } from './consumer-runner';

const exporter = recordSpans();

const A = '00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-1111111111111111-01';
const B = '00-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb-2222222222222222-01';
const oid = (n: number): string => n.toString(16).padStart(24, '0');
const record = (n: number, traceparent: string): InboundRecord => ({
  topic: 'test.commands',
  partition: 0,
  offset: String(n),
  key: null,
  value: Buffer.from(JSON.stringify(createMessage('inventory.commands.v1', 'ReleaseStock', { order_id: oid(n) }, { correlation_id: `corr-${n}`, causation_id: null }).envelope)),
  headers: { traceparent },
  heartbeat: async () => undefined,
});
// never publishes here: no record of these tests is dead-lettered
const runner = new ConsumerRunner(undefined as unknown as KafkaPublisher, pino({ level: 'silent' }), 'spans-test', undefined, { attempts: 1, initialBackoffMs: 1, maxBackoffMs: 1 });
const outgoing = { topic: 'inventory.events.v1', key: 'k', envelope: createMessage('inventory.events.v1', 'StockCommitted', { order_id: oid(9) }, { correlation_id: 'x', causation_id: null }).envelope } as never;

/**
 * Group commit keeps each message's trace (ADR 0014): the work a batch handler does for one record
 * (`BatchContext.within`) runs in that record's `handle <type>` span — a child of the producer span
 * its headers name — and in its correlation, so what it stores in an outbox continues its trace.
 */
describe('ConsumerRunner.runBatch: each record handled in its own trace', () => {
  it('an outbox entry built within record i continues record i’s trace, under a `handle` span that ends with the batch', async () => {
    const built: { traceparent?: string; correlation: string; causation: string | null }[] = [];
    await runner.runBatch(
      'inventory.commands.v1',
      [record(1, A), record(2, B)],
      async (envelopes, ctx) => {
        for (const i of [1, 0])
          ctx.within(i, () => built[i] = { traceparent: toOutboxEntries([outgoing])[0]!.traceparent, correlation: outgoingTrace().correlation_id, causation: outgoingTrace().causation_id });
        expect(envelopes).toHaveLength(2);
      },
      async () => undefined,
    );
    const handles = exporter.getFinishedSpans().filter((s) => s.name === 'handle ReleaseStock');
    expect(handles).toHaveLength(2);
    for (const [i, parent] of [A, B].entries()) {
      const span = handles.find((s) => s.spanContext().traceId === parent.slice(3, 35))!;
      expect(span.parentSpanContext?.spanId).toBe(parent.slice(36, 52));
      expect(span.attributes['mw.batch']).toBe(true);
      expect(built[i]?.traceparent).toBe(`00-${parent.slice(3, 35)}-${span.spanContext().spanId}-01`);
      expect(built[i]?.correlation).toBe(`corr-${i + 1}`);
      expect(built[i]?.causation).toBe(span.attributes['messaging.message.id']);
    }
    expect(exporter.getFinishedSpans().some((s) => s.name === 'handle batch inventory.commands.v1')).toBe(true);
  });

  it('a failed batch ends the spans it opened as errors, then each record takes the per-message path in its own span', async () => {
    const handled: string[] = [];
    await runner.runBatch(
      'inventory.commands.v1',
      [record(3, A), record(4, B)],
      async (_, ctx) => {
        ctx.within(0, () => undefined);
        throw new Error('bulkWrite failed');
      },
      async (e) => void handled.push(e.payload.order_id),
    );
    expect(handled).toEqual([oid(3), oid(4)]);
    const handles = exporter.getFinishedSpans().filter((s) => s.name === 'handle ReleaseStock');
    const failed = handles.filter((s) => s.attributes['mw.batch'] === true);
    expect(failed).toHaveLength(1);
    expect(failed[0]?.status.code).toBe(2); // ERROR
    expect(handles.filter((s) => s.attributes['mw.batch'] === undefined)).toHaveLength(2);
  });
});
