import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { Db, MongoClient } from 'mongodb';
import pino from 'pino';
import { Registry } from 'prom-client';
import { createMessage, OutgoingMessage, TopicName } from '@mw/contracts';
import { createMongoClient } from '@mw/persistence';
import { collectFrom, testEnv, uniqueName, waitFor } from '@mw/testing';
import { createKafka, ensureTopics } from '../kafka/kafka';
import { KafkaPublisher } from '../publisher/publisher';
import { listParked, requeueParked } from './outbox-parked';
import { OutboxRelay } from './outbox-relay';
import { OUTBOX_FIELD, OutboxEntry, toOutboxEntries } from './outbox';

const env = testEnv();
const logger = pino({ level: 'silent' });
const hex = (n: number): string => n.toString(16).padStart(24, '0');

describe('outbox relay: a poison entry parks one document, the others keep publishing (real MongoDB + real Kafka)', () => {
  let mongo: MongoClient;
  let kafka: Kafka;
  let db: Db;
  const good = uniqueName('test.outbox.good') as TopicName;
  const small = uniqueName('test.outbox.small') as TopicName;
  const missing = uniqueName('test.outbox.never-created') as TopicName;

  beforeAll(async () => {
    mongo = await createMongoClient(env.mongoUrl).connect();
    db = mongo.db(uniqueName('outbox_poison'));
    kafka = new Kafka({ clientId: 'outbox-poison-test', brokers: env.kafkaBrokers, sasl: env.kafkaSasl, logLevel: logLevel.NOTHING });
    await ensureTopics(kafka, [good], 3);
    const admin = kafka.admin();
    await admin.connect();
    // a topic whose records may take 2 KB: the broker itself refuses bigger ones
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic: small, numPartitions: 1, replicationFactor: 1, configEntries: [{ name: 'max.message.bytes', value: '2048' }] }] });
    await admin.disconnect();
    await OutboxRelay.ensureIndexes(db, ['aggregates']);
  });
  afterAll(async () => {
    await db.dropDatabase();
    await mongo.close();
  });

  function entry(topic: string, n: number, pad = 0): OutboxEntry {
    const msg = createMessage('inventory.commands.v1', 'ReleaseStock', { order_id: hex(n) }, { correlation_id: 'x'.repeat(Math.max(1, pad)), causation_id: null });
    return toOutboxEntries([{ ...msg, topic } as OutgoingMessage])[0]!;
  }

  it('parks a record too large for its topic, one for a missing topic and a corrupt one; publishes everything else; later entries of a parked document wait', async () => {
    const coll = db.collection<{ _id: string; [OUTBOX_FIELD]: OutboxEntry[] }>('aggregates');
    const goodIds: string[] = [];
    // the poison documents are the oldest, so every pass reads them first
    const tooLarge = entry(small, 1, 5000);
    const noTopic = entry(missing, 2);
    const corrupt: OutboxEntry = { id: randomUUID(), topic: good, key: hex(3), envelope: '{"not json', created_at: new Date() };
    const mixed = [entry(good, 4), entry(small, 4, 5000), entry(good, 4)];
    await coll.insertMany([
      { _id: 'too-large', [OUTBOX_FIELD]: [tooLarge] },
      { _id: 'no-topic', [OUTBOX_FIELD]: [noTopic] },
      { _id: 'corrupt', [OUTBOX_FIELD]: [corrupt] },
      { _id: 'mixed', [OUTBOX_FIELD]: mixed },
    ]);
    for (let n = 100; n < 140; n++) {
      const e = entry(good, n);
      goodIds.push(e.id);
      await coll.insertOne({ _id: `good-${n}`, [OUTBOX_FIELD]: [e] });
    }

    const registry = new Registry();
    const publisher = new KafkaPublisher(createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'relay-poison', logger }));
    const relay = new OutboxRelay({ db, collections: ['aggregates'], publisher, logger, name: 'poison', leaseMs: 5000, batchSize: 10, registry });
    try {
      await waitFor(
        async () => (await relay.drainOnce().catch(() => 0)) >= 0 && (await coll.countDocuments({ _id: { $regex: /^good-/ }, [`${OUTBOX_FIELD}.0`]: { $exists: true } })) === 0,
        20_000,
        'every healthy document published despite the poison ones',
      );
      const parked = async (id: string) => (await coll.findOne({ _id: id }))![OUTBOX_FIELD];
      expect((await parked('too-large'))[0]!.parked?.code).toBe('MESSAGING.PUBLISH_REJECTED');
      expect((await parked('too-large'))[0]!.parked?.reason).toContain('MESSAGE_TOO_LARGE');
      expect((await parked('no-topic'))[0]!.parked?.code).toBe('MESSAGING.TOPIC_NOT_FOUND');
      expect((await parked('corrupt'))[0]!.parked?.code).toBe('MESSAGING.INVALID_OUTBOX_ENTRY');
      // mixed: the first entry went out, the second is parked, the third waits behind it (per-aggregate order)
      const m = await parked('mixed');
      expect(m.map((e) => e.id)).toEqual([mixed[1]!.id, mixed[2]!.id]);
      expect(m[0]!.parked?.code).toBe('MESSAGING.PUBLISH_REJECTED');
      expect(m[1]!.parked).toBeUndefined();

      // new writes to healthy documents keep flowing
      const later = entry(good, 200);
      await coll.insertOne({ _id: 'good-later', [OUTBOX_FIELD]: [later] });
      await waitFor(async () => (await relay.drainOnce()) >= 0 && !(await coll.findOne({ _id: 'good-later' }))![OUTBOX_FIELD].length, 20_000, 'a later write published');

      const wanted = new Set([...goodIds, later.id, mixed[0]!.id]);
      const seen = await collectFrom(kafka, [good], (all) => all.filter((r) => wanted.has(JSON.parse(String(r.message.value)).id)).length >= wanted.size, 30_000);
      const seenIds = seen.map((r) => JSON.parse(String(r.message.value)).id as string);
      expect(seenIds).not.toContain(mixed[2]!.id);
      const metrics = await registry.getSingleMetricAsString('outbox_parked_documents');
      expect(metrics).toMatch(/outbox_parked_documents 4$/m);

      // the operator sees what waits and why, fixes the cause (creates the topic) and requeues
      expect((await listParked(db, ['aggregates'])).map((p) => p._id).sort()).toEqual(['corrupt', 'mixed', 'no-topic', 'too-large']);
      await ensureTopics(kafka, [missing], 1);
      expect(await requeueParked(db, ['aggregates'], ['no-topic'])).toBe(1);
      await waitFor(async () => (await relay.drainOnce()) >= 0 && (await coll.findOne({ _id: 'no-topic' }))![OUTBOX_FIELD].length === 0, 20_000, 'requeued entry published');
      await collectFrom(kafka, [missing], (all) => all.some((r) => JSON.parse(String(r.message.value)).id === noTopic.id), 30_000);
    } finally {
      await relay.stop();
      await publisher.disconnect();
    }
  });
});
