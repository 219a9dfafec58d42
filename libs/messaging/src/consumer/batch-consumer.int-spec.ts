import { KafkaJSNonRetriableError } from 'kafkajs';
import pino from 'pino';
import { HealthRegistry } from '@mw/platform';
import { testEnv, uniqueName, waitFor } from '@mw/testing';
import { createKafka, ensureTopics } from '../kafka/kafka';
import { BatchConsumer } from './batch-consumer';

const env = testEnv();
const logger = pino({ level: 'silent' });

/**
 * A consumer that kafkajs will not restart (a failure it calls non-retriable, as a broker that
 * closes the SASL handshake while it restarts) is replaced by a new one in the same group: the
 * service consumes again and is ready again, without a process restart. Real Kafka.
 */
describe('BatchConsumer after a crash kafkajs does not restart (real Kafka)', () => {
  const topic = uniqueName('test.relaunch');
  const kafka = createKafka({
    brokers: env.kafkaBrokers,
    sasl: env.kafkaSasl,
    clientId: 'relaunch-test',
    logger,
  });
  let consumer: BatchConsumer | undefined;

  beforeAll(() => ensureTopics(kafka, [topic], 1));
  afterAll(async () => {
    await consumer?.stop();
  });

  it('is relaunched: not ready while down, then ready, and the chunk that crashed it is handled (its offsets were never committed)', async () => {
    const health = new HealthRegistry();
    const seen: string[] = [];
    const statuses: string[] = [];
    let failures = 1;
    consumer = new BatchConsumer(
      kafka,
      {
        name: 'relaunch-consumer',
        groupId: uniqueName('relaunch'),
        topics: [topic],
        fromBeginning: true,
        sessionTimeoutMs: 10_000,
        heartbeatIntervalMs: 1000,
        partitionsConcurrently: 1,
        batchMax: 10,
        onStatus: (st) => void (statuses.at(-1) === st || statuses.push(st)),
      },
      async (records) => {
        if (failures-- > 0) throw new KafkaJSNonRetriableError('closed mid-handshake (test)');
        for (const r of records) seen.push(String(r.value));
      },
      health,
      logger,
    );
    const producer = kafka.producer();
    await producer.connect();
    try {
      await consumer.start();
      await producer.send({ topic, acks: -1, messages: ['a', 'b', 'c'].map((value) => ({ value })) });
      await waitFor(
        async () => (seen.length === 3 ? true : undefined),
        60_000,
        'the records after the relaunch',
      );
      expect(seen).toEqual(['a', 'b', 'c']);
      await waitFor(async () => ((await health.run()).ready ? true : undefined), 30_000, 'ready again');
      expect(consumer.relaunches).toBe(1);
      expect(consumer.status).toBe('running');
    } finally {
      await producer.disconnect();
    }
    // down (crashed for good, not ready), a new consumer (restarting), then the group joined again
    expect(statuses.slice(statuses.indexOf('crashed'))).toEqual(['crashed', 'restarting', 'running']);
    expect(statuses.slice(0, 2)).toEqual(['starting', 'running']);
  });
});

/**
 * The linger (ADR 0015 §1): records that arrive one at a time while the consumer pauses after a
 * small batch come as one batch at the next fetch, instead of a fetch, a handler call and an offset
 * commit each. Real Kafka.
 */
describe('BatchConsumer linger (real Kafka)', () => {
  const topic = uniqueName('test.linger');
  const kafka = createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'linger-test', logger });
  let consumer: BatchConsumer | undefined;

  beforeAll(() => ensureTopics(kafka, [topic], 1));
  afterAll(async () => {
    await consumer?.stop();
  });

  it('after a small batch, the next fetch waits: eight records sent 50 ms apart are handled in two or three calls', async () => {
    const calls: string[][] = [];
    const health = new HealthRegistry();
    consumer = new BatchConsumer(
      kafka,
      {
        name: 'linger-consumer',
        groupId: uniqueName('linger'),
        topics: [topic],
        fromBeginning: true,
        sessionTimeoutMs: 10_000,
        heartbeatIntervalMs: 1000,
        partitionsConcurrently: 1,
        batchMax: 100,
        lingerMs: 5000,
      },
      async (records) => void calls.push(records.map((r) => String(r.value))),
      health,
      logger,
    );
    const producer = kafka.producer();
    await producer.connect();
    try {
      await consumer.start();
      // joined before the first send: records sent before would all come in the first fetch anyway
      await waitFor(async () => ((await health.run()).ready ? true : undefined), 30_000, 'consumer joined');
      for (let i = 0; i < 8; i++) {
        await producer.send({ topic, acks: -1, messages: [{ value: `r${i}` }] });
        await new Promise((r) => setTimeout(r, 50));
      }
      await waitFor(async () => calls.flat().length === 8, 30_000, 'all eight handled');
      expect(calls.flat()).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
      // the first record may come alone (the long poll answers at once); what follows waits out the linger
      // together. Without the linger each record is its own fetch and call (eight calls).
      expect(calls.length).toBeLessThanOrEqual(3);
    } finally {
      await producer.disconnect();
    }
  }, 60_000);
});
