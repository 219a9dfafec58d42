import { createServer } from 'node:net';
import { Consumer, Kafka } from 'kafkajs';
import pino from 'pino';
import { Registry } from 'prom-client';
import { createMessage, TopicName } from '@mw/contracts';
import { createMongoClient } from '@mw/persistence';
import { HealthRegistry } from '@mw/platform';
import { collectFrom, testEnv, uniqueName, waitFor } from '@mw/testing';
import { createKafka, ensureTopics } from '../kafka/kafka';
import { KafkaPublisher } from '../publisher/publisher';
import { ConsumerRunner, HandlerContext } from './consumer-runner';
import { recordFromPayload } from './nest-kafka';

const env = testEnv();
const logger = pino({ level: 'silent' });
const oid = (n: number): string => n.toString(16).padStart(24, '0');
const trace = { correlation_id: 'outage-1', causation_id: null };

/** A port nothing listens on: a MongoDB client pointed at it fails server selection for real. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

/**
 * Failure handling of the consumer runner against a real broker and a real MongoDB (ADR 0004):
 * an outage longer than any retry budget and longer than the session timeout is waited out, the
 * record is handled once the dependency is back; a handler slower than the session timeout never
 * runs on two members at once.
 */
describe('ConsumerRunner failure handling (real Kafka, real MongoDB)', () => {
  let kafka: Kafka;
  let publisher: KafkaPublisher;
  const consumers: Consumer[] = [];
  const runners: ConsumerRunner[] = [];
  const mongo = createMongoClient(env.mongoUrl);
  const dbName = uniqueName('outage').slice(0, 60);

  beforeAll(async () => {
    kafka = createKafka({
      brokers: env.kafkaBrokers,
      sasl: env.kafkaSasl,
      clientId: 'failures-test',
      logger,
    });
    publisher = new KafkaPublisher(kafka);
    await mongo.connect();
  });

  afterAll(async () => {
    for (const r of runners) r.stop();
    for (const c of consumers) await c.disconnect();
    await publisher.disconnect();
    await mongo.db(dbName).dropDatabase();
    await mongo.close();
  });

  async function member(
    groupId: string,
    topic: string,
    onRecord: Parameters<Consumer['run']>[0],
  ): Promise<{ consumer: Consumer; joins: () => number }> {
    const consumer = kafka.consumer({
      groupId,
      allowAutoTopicCreation: false,
      sessionTimeout: 6000,
      heartbeatInterval: 1000,
      rebalanceTimeout: 30_000,
    });
    consumers.push(consumer);
    let joins = 0;
    consumer.on(consumer.events.GROUP_JOIN, () => void joins++);
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run(onRecord);
    return { consumer, joins: () => joins };
  }

  it('a MongoDB outage longer than the retry budget and the session timeout: waited out, readiness not-ready meanwhile, handled once it is back, nothing dead-lettered', async () => {
    const topic = uniqueName('test.outage') as TopicName;
    await ensureTopics(kafka, [topic], 1);
    const health = new HealthRegistry();
    const registry = new Registry();
    const runner = new ConsumerRunner(publisher, logger, 'outage-test', registry, {
      attempts: 3,
      initialBackoffMs: 50,
      maxBackoffMs: 400,
      handlerTimeoutMs: 4000,
      heartbeatEveryMs: 300,
    });
    runners.push(runner);
    health.register(runner.readiness);
    const down = createMongoClient(`mongodb://127.0.0.1:${await closedPort()}/?directConnection=true`, {
      serverSelectionTimeoutMS: 300,
    });
    let outage = true;
    let attempts = 0;
    const errors = new Set<string>();
    const { joins } = await member(uniqueName('outage'), topic, {
      eachMessage: async (payload) => {
        await runner.run('inventory.commands.v1', recordFromPayload(payload), async (e) => {
          attempts++;
          const db = (outage ? down : mongo).db(dbName);
          try {
            await db.collection('released').insertOne({ order_id: e.payload.order_id, at: new Date() });
          } catch (err) {
            errors.add((err as Error).name);
            throw err;
          }
        });
      },
    });
    await waitFor(async () => joins() >= 1, 30_000, 'member joined');

    await publisher.publish({
      ...createMessage('inventory.commands.v1', 'ReleaseStock', { order_id: oid(1) }, trace),
      topic,
    } as never);
    const started = Date.now();
    // Longer than the old budget (5 attempts) and than the session timeout (6 s).
    await waitFor(
      async () => attempts >= 10 && Date.now() - started > 8000,
      60_000,
      'the outage outlasting the retry budget and the session',
    );
    // Real driver errors: server selection fails; the client that failed to connect then reports its topology closed.
    expect(errors.has('MongoServerSelectionError')).toBe(true);
    expect(
      [...errors].filter((n) => n !== 'MongoServerSelectionError' && n !== 'MongoTopologyClosedError'),
    ).toEqual([]);
    const during = await health.run();
    expect(during.ready).toBe(false);
    expect(during.checks['kafka-consumer']?.error).toMatch(/waiting for a dependency/);
    expect(await registry.getSingleMetricAsString('kafka_consumer_partitions_waiting')).toMatch(
      /kafka_consumer_partitions_waiting 1/,
    );

    outage = false;
    await waitFor(
      async () =>
        (await mongo
          .db(dbName)
          .collection('released')
          .countDocuments({ order_id: oid(1) })) === 1,
      30_000,
      'handled after the outage',
    );
    await waitFor(async () => (await health.run()).ready, 10_000, 'ready again');
    expect(await registry.getSingleMetricAsString('kafka_consumer_partitions_waiting')).toMatch(
      /kafka_consumer_partitions_waiting 0/,
    );
    // The member kept its partition through the outage (it heartbeated while waiting): no rebalance.
    expect(joins()).toBe(1);
    // Nothing reached the dead-letter topic: a marker sent to it is the first record there.
    await publisher.sendRaw(`${topic}.dlq`, { key: 'marker', value: 'marker', headers: {} });
    const dlq = await collectFrom(kafka, [`${topic}.dlq`], (all) =>
      all.some((r) => r.message.key?.toString() === 'marker'),
    );
    expect(dlq.map((r) => r.message.key?.toString())).toEqual(['marker']);
    await down.close();
  }, 120_000);

  it('a handler slower than the session timeout, two members in one group: one member works on the record, never two at once', async () => {
    const topic = uniqueName('test.slow') as TopicName;
    await ensureTopics(kafka, [topic], 1);
    const groupId = uniqueName('slow');
    let active = 0;
    let maxActive = 0;
    const invocations: string[] = [];
    let completed = 0;
    const handler = (member: string) => async (_e: unknown, ctx: HandlerContext) => {
      active++;
      maxActive = Math.max(maxActive, active);
      invocations.push(member);
      try {
        // The first call takes 9 s (longer than the 6 s session) unless it is told to stop.
        if (invocations.length === 1) await abortableSleep(9000, ctx.signal);
        if (ctx.signal.aborted) throw ctx.signal.reason;
        completed++;
      } finally {
        active--;
      }
    };
    const start = async (name: string) => {
      const runner = new ConsumerRunner(publisher, logger, groupId, undefined, {
        initialBackoffMs: 50,
        maxBackoffMs: 400,
        handlerTimeoutMs: 4000,
        heartbeatEveryMs: 300,
      });
      runners.push(runner);
      return member(groupId, topic, {
        eachMessage: async (payload) => {
          await runner.run('inventory.commands.v1', recordFromPayload(payload), handler(name));
        },
      });
    };
    const a = await start('a');
    await waitFor(async () => a.joins() >= 1, 30_000, 'a joined');
    const b = await start('b');
    // b's arrival makes the group rebalance: a joins again, then the group is stable.
    await waitFor(async () => b.joins() >= 1 && a.joins() >= 2, 60_000, 'both members in the group');

    await publisher.publish({
      ...createMessage('inventory.commands.v1', 'ReleaseStock', { order_id: oid(2) }, trace),
      topic,
    } as never);
    await waitFor(async () => completed >= 1, 60_000, 'the record handled');
    // Watch for longer than a session timeout: a member that lost the partition would hand it over now.
    await new Promise((r) => setTimeout(r, 9000));
    expect({
      maxActive,
      completed,
      members: [...new Set(invocations)].length,
      invocations: invocations.length,
    }).toEqual({ maxActive: 1, completed: 1, members: 1, invocations: 2 });
  }, 150_000);
});
