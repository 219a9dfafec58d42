import { Kafka } from 'kafkajs';
import pino from 'pino';
import { Registry } from 'prom-client';
import { testEnv, uniqueName } from '@mw/testing';
import { createKafka, ensureTopics } from '../kafka/kafka';
import { ConsumerLagMetrics } from './consumer-lag';

const env = testEnv();
const logger = pino({ level: 'silent' });

/** kafka_consumer_group_lag and kafka_topic_partition_end_offset read from a real broker at scrape time. */
describe('ConsumerLagMetrics (real Kafka)', () => {
  const topic = uniqueName('test.lag');
  const group = uniqueName('lag');
  let kafka: Kafka;
  const admin = (): ReturnType<Kafka['admin']> => kafka.admin();

  beforeAll(async () => {
    kafka = createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'lag-test', logger });
    await ensureTopics(kafka, [topic], 2);
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [0, 1, 2, 3, 4].map((n) => ({ partition: 0, value: `m${n}` })) });
    await producer.send({ topic, messages: [{ partition: 1, value: 'x' }] });
    await producer.disconnect();
    // the group has handled two records of partition 0 and nothing of partition 1
    const a = admin();
    await a.connect();
    await a.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: '2' }] });
    await a.disconnect();
  });

  it('lag per group and partition = end − committed; a partition never committed has no series', async () => {
    const a = admin();
    const registry = new Registry();
    new ConsumerLagMetrics(a, registry, [group, uniqueName('idle')], [topic]);
    try {
      const text = await registry.metrics();
      const lagLines = text.split('\n').filter((l) => l.startsWith('kafka_consumer_group_lag{'));
      expect(lagLines).toEqual([
        `kafka_consumer_group_lag{group="${group}",topic="${topic}",partition="0"} 3`,
      ]);
      expect(text).toContain(`kafka_topic_partition_end_offset{topic="${topic}",partition="0"} 5`);
      expect(text).toContain(`kafka_topic_partition_end_offset{topic="${topic}",partition="1"} 1`);
    } finally {
      await a.disconnect();
    }
  });
});
