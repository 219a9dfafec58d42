import { Consumer, Kafka } from 'kafkajs';
import pino from 'pino';
import { createMessage, EnvelopeOf, TopicName } from '@mw/contracts';
import { AppError } from '@mw/platform';
import { collectFrom, header, testEnv, uniqueName, waitFor } from '@mw/testing';
import { createKafka, ensureTopics } from '../kafka/kafka';
import { KafkaPublisher } from '../publisher/publisher';
import { redrive } from '../dlq/redrive';
import { ConsumerRunner } from './consumer-runner';

const env = testEnv();
const logger = pino({ level: 'silent' });
const oid = (n: number): string => n.toString(16).padStart(24, '0');
const trace = { correlation_id: 'saga-42', causation_id: null };

/**
 * The consumer wrapper against a real broker. The topic is a fresh one per run that carries
 * inventory.commands.v1 messages, so runs never see each other's records.
 */
describe('ConsumerRunner, publisher and DLQ redrive (real Kafka)', () => {
  const topic = uniqueName('test.commands') as TopicName;
  let kafka: Kafka;
  let publisher: KafkaPublisher;
  let consumer: Consumer;
  const handled: EnvelopeOf<'inventory.commands.v1'>[] = [];
  const attempts = new Map<string, number>();
  let healed = false;

  beforeAll(async () => {
    kafka = createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'runner-test', logger });
    await ensureTopics(kafka, [topic], 2);
    publisher = new KafkaPublisher(kafka);
    const runner = new ConsumerRunner(publisher, logger, 'runner-test', undefined, { attempts: 3, initialBackoffMs: 10, maxBackoffMs: 50 });
    consumer = kafka.consumer({ groupId: uniqueName('runner'), allowAutoTopicCreation: false });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic: t, partition, message }) => {
        await runner.run('inventory.commands.v1', { topic: t, partition, offset: message.offset, key: message.key, value: message.value, headers: message.headers }, async (e) => {
          const orderId = e.payload.order_id;
          attempts.set(orderId, (attempts.get(orderId) ?? 0) + 1);
          if (orderId === oid(2) && !healed) throw new Error('database timeout'); // retryable, never heals during the run
          if (orderId === oid(3)) throw new AppError('INVENTORY.UNKNOWN_ZONE', 'validation', 'zone XYZ is not served');
          handled.push(e);
        });
      },
    });
  });

  afterAll(async () => {
    await consumer.disconnect();
    await publisher.disconnect();
  });

  const send = (n: number) =>
    publisher.publish({ ...createMessage('inventory.commands.v1', 'ReleaseStock', { order_id: oid(n) }, trace), topic } as never);

  it('delivers a valid message to the handler once, keyed by the aggregate id', async () => {
    await send(1);
    await waitFor(async () => handled.some((e) => e.payload.order_id === oid(1)), 30_000, 'message 1 handled');
    expect(attempts.get(oid(1))).toBe(1);
    const [rec] = await collectFrom(kafka, [topic], (all) => all.length >= 1);
    expect(rec?.message.key?.toString()).toBe(oid(1));
    expect(header(rec!.message, 'x-correlation-id')).toBe('saga-42');
  });

  it('dead-letters unparseable and invalid messages at once with the reason and original coordinates', async () => {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: 'bad-json', value: '{not json' }] });
    await producer.send({
      topic,
      messages: [{ key: 'bad-qty', value: JSON.stringify({ ...createMessage('inventory.commands.v1', 'ReleaseStock', { order_id: oid(9) }, trace).envelope, type: 'ReserveStock', payload: { order_id: oid(9), zone: 'MSK', lines: [{ product_id: oid(9), qty: -5 }], hold_seconds: 60 } }) }],
    });
    await producer.disconnect();
    const dlq = await collectFrom(kafka, [`${topic}.dlq`], (all) => all.length >= 2);
    const byKey = new Map(dlq.map((d) => [d.message.key?.toString(), d.message]));
    expect(header(byKey.get('bad-json')!, 'x-dlq-error-code')).toBe('COMMON.UNPARSEABLE_MESSAGE');
    expect(header(byKey.get('bad-qty')!, 'x-dlq-reason')).toMatch(/lines\.0\.qty/);
    expect(header(byKey.get('bad-qty')!, 'x-original-topic')).toBe(topic);
    expect(header(byKey.get('bad-qty')!, 'x-original-offset')).toMatch(/^\d+$/);
    expect(byKey.get('bad-json')!.value?.toString()).toBe('{not json'); // original bytes kept
  });

  it('retries a retryable failure with backoff, then dead-letters after N attempts; a non-retryable one at once', async () => {
    await send(2);
    await send(3);
    const dlq = await collectFrom(kafka, [`${topic}.dlq`], (all) => all.length >= 4);
    const two = dlq.find((d) => d.message.key?.toString() === oid(2))!.message;
    const three = dlq.find((d) => d.message.key?.toString() === oid(3))!.message;
    expect(header(two, 'x-dlq-attempts')).toBe('3');
    expect(header(two, 'x-dlq-error-code')).toBe('COMMON.HANDLER_FAILED');
    expect(header(three, 'x-dlq-attempts')).toBe('1');
    expect(header(three, 'x-dlq-error-code')).toBe('INVENTORY.UNKNOWN_ZONE');
    expect(attempts.get(oid(2))).toBe(3);
    // The consumer moved on: a later message is still handled.
    await send(4);
    await waitFor(async () => handled.some((e) => e.payload.order_id === oid(4)), 30_000, 'message 4 handled');
  });

  it('redrive moves dead-lettered messages back; once the cause is fixed they are handled', async () => {
    healed = true;
    const first = await redrive({ kafka, topic, group: 'runner-test', logger });
    expect(first.moved).toBe(4);
    await waitFor(async () => handled.some((e) => e.payload.order_id === oid(2)), 30_000, 'redriven message 2 handled');
    // The three that fail again (two invalid, order 3) are back in the DLQ: 4 earlier + 3 new records.
    await collectFrom(kafka, [`${topic}.dlq`], (all) => all.length >= 7, 30_000);
    const again = await redrive({ kafka, topic, group: 'runner-test', logger });
    // Only the ones that failed again after the first redrive (the two invalid + order 3) are new in the DLQ.
    expect(again.moved).toBe(3);
  });
});
