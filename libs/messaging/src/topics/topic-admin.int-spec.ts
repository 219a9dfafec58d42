import { Admin, ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { testEnv, uniqueName } from '@mw/testing';
import { ensureTopicSpecs, TopicMismatchError, TopicPolicyError } from './topic-admin';
import { dlqDefinition, topicDefinitions, topicSpecs } from './topic-definitions';

const env = testEnv();
const policy = { replicationFactor: 1, minInsyncReplicas: 1 };
const DAY = 86_400_000;

describe('topic definitions: created from one place, verified at start (real Kafka)', () => {
  let kafka: Kafka;
  let admin: Admin;

  beforeAll(async () => {
    kafka = new Kafka({ clientId: 'topic-admin-test', brokers: env.kafkaBrokers, sasl: env.kafkaSasl, logLevel: logLevel.NOTHING });
    admin = kafka.admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin.disconnect();
  });

  async function configsOf(topic: string): Promise<Record<string, string>> {
    const res = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] });
    return Object.fromEntries(res.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
  }
  async function partitionsOf(topic: string): Promise<number> {
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    return meta.topics[0]!.partitions.length;
  }

  it('creates a missing topic and its DLQ with the base topic definition (private name, private partitions)', async () => {
    const name = uniqueName('test.topics.events');
    await ensureTopicSpecs(kafka, topicSpecs({ 'inventory.events.v1': name }, 2), policy);

    expect(await partitionsOf(name)).toBe(2);
    const c = await configsOf(name);
    const def = topicDefinitions['inventory.events.v1'];
    expect(c['retention.ms']).toBe(String(def.retentionMs));
    expect(c['cleanup.policy']).toBe(def.cleanupPolicy);
    expect(c['max.message.bytes']).toBe(String(def.maxMessageBytes));
    expect(c['min.insync.replicas']).toBe('1');

    expect(await partitionsOf(`${name}.dlq`)).toBe(1);
    const d = await configsOf(`${name}.dlq`);
    expect(d['retention.ms']).toBe(String(30 * DAY));
    expect(d['max.message.bytes']).toBe(String(dlqDefinition.maxMessageBytes));

    // a second start (or a second instance) finds everything as defined: nothing to do, no error
    await ensureTopicSpecs(kafka, topicSpecs({ 'inventory.events.v1': name }, 2), policy);
  });

  it('several services starting at once on missing topics all start (the one that loses the creation race waits for the leaders)', async () => {
    // the checkout benchmark saw orders exit with "This server does not host this topic-partition"
    // when inventory created the same topics a moment before it; each round is fresh topics raced by 4
    for (let round = 0; round < 5; round++) {
      const names = { 'inventory.events.v1': uniqueName('test.topics.race'), 'inventory.commands.v1': uniqueName('test.topics.race') };
      const starts = Array.from({ length: 4 }, () => ensureTopicSpecs(kafka, topicSpecs(names, 3), policy));
      const outcomes = await Promise.allSettled(starts);
      expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason))).toEqual([]);
      expect(await partitionsOf(names['inventory.events.v1'])).toBe(3);
    }
  });

  it('fails start with one line when an existing topic has other partitions or another cleanup policy', async () => {
    const wrongPartitions = uniqueName('test.topics.commands');
    const compacted = uniqueName('test.topics.orders');
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic: wrongPartitions, numPartitions: 5, replicationFactor: 1 },
        { topic: compacted, numPartitions: 3, replicationFactor: 1, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] },
      ],
    });
    const specs = topicSpecs({ 'inventory.commands.v1': wrongPartitions, 'orders.orders.v1': compacted }, 3);

    const err = await ensureTopicSpecs(kafka, specs, policy).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TopicMismatchError);
    const message = (err as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toContain(`${wrongPartitions}: 5 partitions, defined 3`);
    expect(message).toContain(`${compacted}: cleanup.policy=compact, defined delete`);
    expect((err as TopicMismatchError).code).toBe('MESSAGING.TOPIC_MISMATCH');
    // nothing was changed behind the operator's back
    expect(await partitionsOf(wrongPartitions)).toBe(5);
  });

  it('sets owned configs that are safe to change (retention, record size, min ISR) and keeps other overrides', async () => {
    const name = uniqueName('test.topics.products');
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic: name,
          numPartitions: 3,
          replicationFactor: 1,
          configEntries: [
            { name: 'retention.ms', value: String(DAY) },
            { name: 'segment.ms', value: String(3_600_000) },
          ],
        },
      ],
    });
    await ensureTopicSpecs(kafka, topicSpecs({ 'catalog.products.v1': name }, 3), policy);
    const c = await configsOf(name);
    expect(c['retention.ms']).toBe(String(topicDefinitions['catalog.products.v1'].retentionMs));
    expect(c['max.message.bytes']).toBe(String(topicDefinitions['catalog.products.v1'].maxMessageBytes));
    expect(c['segment.ms']).toBe('3600000');
  });

  it('refuses replication settings the cluster cannot honour before creating anything', async () => {
    const name = uniqueName('test.topics.checkout');
    await expect(ensureTopicSpecs(kafka, topicSpecs({ 'carts.checkout.v1': name }), { replicationFactor: 1, minInsyncReplicas: 2 })).rejects.toThrow(TopicPolicyError);
    await expect(ensureTopicSpecs(kafka, topicSpecs({ 'carts.checkout.v1': name }), { replicationFactor: 3, minInsyncReplicas: 2 })).rejects.toThrow(
      'KAFKA_REPLICATION_FACTOR is 3 but the cluster has 1 broker(s)',
    );
    expect(await admin.listTopics()).not.toContain(name);
  });
});
