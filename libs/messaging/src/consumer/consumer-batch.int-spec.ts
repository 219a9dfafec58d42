import { Kafka } from 'kafkajs';
import pino from 'pino';
import { createMessage, EnvelopeOf, TopicName } from '@mw/contracts';
import { AppError } from '@mw/platform';
import { collectFrom, header, testEnv, uniqueName } from '@mw/testing';
import { createKafka, ensureTopics } from '../kafka/kafka';
import { KafkaPublisher } from '../publisher/publisher';
import { ConsumerRunner, InboundRecord, REDRIVE_GROUP_HEADER } from './consumer-runner';

const env = testEnv();
const logger = pino({ level: 'silent' });
const oid = (n: number): string => n.toString(16).padStart(24, '0');
const trace = { correlation_id: 'batch-1', causation_id: null };
type Command = EnvelopeOf<'inventory.commands.v1'>;

/**
 * Group commit (issue #17): `runBatch` hands the valid records of a batch to one handler call, and
 * when that call fails gives each record the per-message path — so a batch never loses a record,
 * never dead-letters one that succeeds alone, and never skips the dead-letter topic for one that
 * cannot. The dead-letter topic is a real one.
 */
describe('ConsumerRunner.runBatch (real Kafka dead-letter topic)', () => {
  const topic = uniqueName('test.commands') as TopicName;
  let kafka: Kafka;
  let publisher: KafkaPublisher;
  let runner: ConsumerRunner;
  let offset = 0;

  beforeAll(async () => {
    kafka = createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'batch-test', logger });
    await ensureTopics(kafka, [topic], 1);
    publisher = new KafkaPublisher(kafka);
    runner = new ConsumerRunner(publisher, logger, 'batch-test', undefined, { attempts: 2, initialBackoffMs: 5, maxBackoffMs: 10 });
  });
  afterAll(() => publisher.disconnect());

  const record = (value: string, headers: InboundRecord['headers'] = {}): InboundRecord => ({ topic, partition: 0, offset: String(offset++), key: null, value: Buffer.from(value), headers });
  const release = (n: number): InboundRecord => record(JSON.stringify(createMessage('inventory.commands.v1', 'ReleaseStock', { order_id: oid(n) }, trace).envelope));
  const ids = (es: readonly Command[]) => es.map((e) => e.payload.order_id);

  it('valid records: one batch call with all of them, in order; the per-message handler is never called', async () => {
    const batches: string[][] = [];
    const single: string[] = [];
    const outcomes = await runner.runBatch(
      'inventory.commands.v1',
      [release(1), release(2), release(3)],
      async (es) => void batches.push(ids(es)),
      async (e) => void single.push(e.payload.order_id),
    );
    expect(outcomes).toEqual(['handled', 'handled', 'handled']);
    expect(batches).toEqual([[oid(1), oid(2), oid(3)]]);
    expect(single).toEqual([]);
  });

  it('an invalid record goes to the dead-letter topic at once and the valid ones are batched without it; a record redriven for another group is skipped', async () => {
    const batches: string[][] = [];
    const outcomes = await runner.runBatch(
      'inventory.commands.v1',
      [release(4), record('{not json'), release(5), record(JSON.stringify(createMessage('inventory.commands.v1', 'ReleaseStock', { order_id: oid(6) }, trace).envelope), { [REDRIVE_GROUP_HEADER]: 'another-group' })],
      async (es) => void batches.push(ids(es)),
      async () => undefined,
    );
    expect(outcomes).toEqual(['handled', 'dead-lettered', 'handled', 'skipped']);
    expect(batches).toEqual([[oid(4), oid(5)]]);
    const [dead] = await collectFrom(kafka, [`${topic}.dlq`], (all) => all.length >= 1);
    expect(header(dead!.message, 'x-dlq-error-code')).toBe('COMMON.UNPARSEABLE_MESSAGE');
  });

  it('a failed batch call: every record takes the per-message path — the ones that succeed alone are handled, the one that cannot is dead-lettered', async () => {
    const single: string[] = [];
    const outcomes = await runner.runBatch(
      'inventory.commands.v1',
      [release(7), release(8), release(9)],
      async () => {
        throw new Error('write conflict in the batch transaction');
      },
      async (e) => {
        if (e.payload.order_id === oid(8)) throw new AppError('INVENTORY.UNKNOWN_ZONE', 'validation', 'zone XYZ is not served');
        single.push(e.payload.order_id);
      },
    );
    expect(outcomes).toEqual(['handled', 'dead-lettered', 'handled']);
    expect(single).toEqual([oid(7), oid(9)]);
    const dlq = await collectFrom(kafka, [`${topic}.dlq`], (all) => all.length >= 2);
    expect(dlq.map((d) => header(d.message, 'x-dlq-error-code'))).toContain('INVENTORY.UNKNOWN_ZONE');
  });
});
