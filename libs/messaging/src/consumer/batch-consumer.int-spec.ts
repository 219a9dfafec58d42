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
