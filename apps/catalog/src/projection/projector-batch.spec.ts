import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import pino from 'pino';
import { createMessage, EnvelopeOf } from '@mw/contracts';
import { ConsumerRunner, KafkaPublisher } from '@mw/messaging';
import { MESSAGES_PER_APPLY, PRODUCTS_TOPIC, ProjectorBatches } from './projector-batch';
import { ProjectorService } from './projector.service';

type Env = EnvelopeOf<'catalog.products.v1'>;
const trace = { correlation_id: 'projector-batch', causation_id: null };

function created(i: number): Env {
  return createMessage(
    'catalog.products.v1',
    'ProductCreated',
    {
      product_id: `65f2${i.toString(16).padStart(20, '0')}`,
      version: 1,
      name: `P ${i}`,
      category_id: 'aa'.repeat(12),
      ancestors: ['aa'.repeat(12)],
      price: 1000,
      currency: 'RUB',
      attributes: {},
      created_at: '2026-03-01T10:00:00.000Z',
      updated_at: '2026-03-01T10:00:00.000Z',
    },
    trace,
  ).envelope;
}

const message = (offset: number, value: string): KafkaMessage =>
  ({
    offset: String(offset),
    key: null,
    value: Buffer.from(value),
    headers: {},
    timestamp: '0',
    attributes: 0,
  }) as KafkaMessage;

/** The projector's port, recording what reached it and in which order with the offsets resolved. */
class Recorder {
  readonly log: string[] = [];
  /** How many grouped applies fail from now on. */
  failGrouped = 0;
  async applyAll(events: readonly Env[]): Promise<void> {
    this.log.push(`applyAll:${events.length}`);
    if (this.failGrouped-- > 0) throw new Error('Cassandra write timeout');
  }
  async apply(e: Env): Promise<void> {
    this.log.push(`apply:${e.payload.product_id.slice(-2)}`);
  }
}

function setUp(messages: KafkaMessage[]) {
  const rec = new Recorder();
  const dlq: string[] = [];
  const publisher = { sendRaw: async (topic: string) => void dlq.push(topic) } as unknown as KafkaPublisher;
  const logger = pino({ level: 'silent' });
  const runner = new ConsumerRunner(publisher, logger, 'catalog-projector');
  const batches = new ProjectorBatches(runner, rec as unknown as ProjectorService, logger, 1000);
  const payload = {
    batch: { topic: 'catalog.products.v1', partition: 0, messages },
    resolveOffset: (o: string) => rec.log.push(`resolve:${o}`),
    heartbeat: async () => undefined,
    commitOffsetsIfNecessary: async () => undefined,
    isRunning: () => true,
    isStale: () => false,
  } as unknown as EachBatchPayload;
  return { rec, dlq, run: () => batches.consume(payload) };
}

describe('ProjectorBatches (the projector eachBatch)', () => {
  it('applies the plain messages of a batch together and resolves the offset only after', async () => {
    const { rec, run } = setUp([0, 1, 2].map((i) => message(10 + i, JSON.stringify(created(i)))));
    await run();
    expect(rec.log).toEqual(['applyAll:3', 'resolve:12']);
  });

  it('dead-letters an invalid message alone and applies the others together', async () => {
    const { rec, dlq, run } = setUp([
      message(20, JSON.stringify(created(1))),
      message(21, '{"not":"an envelope"}'),
      message(22, JSON.stringify(created(2))),
    ]);
    await run();
    expect(rec.log).toEqual(['applyAll:2', 'resolve:22']);
    expect(dlq).toEqual([`${PRODUCTS_TOPIC}.dlq`]);
  });

  it('a grouped apply that fails twice goes message by message through the runner before anything is resolved', async () => {
    const { rec, run } = setUp([0, 1].map((i) => message(30 + i, JSON.stringify(created(i)))));
    rec.failGrouped = Infinity;
    await run();
    expect(rec.log).toEqual(['applyAll:2', 'apply:00', 'applyAll:1', 'apply:01', 'resolve:31']);
  });

  it('after a failed grouped apply, the first message goes alone (waiting out an outage) and the rest as a group again', async () => {
    const { rec, run } = setUp([0, 1, 2].map((i) => message(40 + i, JSON.stringify(created(i)))));
    rec.failGrouped = 1;
    await run();
    expect(rec.log).toEqual(['applyAll:3', 'apply:00', 'applyAll:2', 'resolve:42']);
  });

  it('resolves chunk by chunk', async () => {
    const n = MESSAGES_PER_APPLY;
    const { rec, run } = setUp(Array.from({ length: n + 1 }, (_, i) => message(i, JSON.stringify(created(i)))));
    await run();
    expect(rec.log).toEqual([`applyAll:${n}`, `resolve:${n - 1}`, 'applyAll:1', `resolve:${n}`]);
  });
});
