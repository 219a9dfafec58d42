import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { createMongoClient } from '@mw/persistence';
import pino from 'pino';
import { createMessage, TopicName } from '@mw/contracts';
import { collectFrom, testEnv, uniqueName, waitFor } from '@mw/testing';
import { createKafka } from '../kafka/kafka';
import { KafkaPublisher } from '../publisher/publisher';
import { OutboxRelay } from './outbox-relay';
import { outboxPush, OUTBOX_FIELD, WithOutbox } from './outbox';

interface Aggregate extends WithOutbox {
  _id: string;
  state?: string;
  version?: number;
}

const env = testEnv();
const logger = pino({ level: 'warn' });
const id = (n: number): string => n.toString(16).padStart(24, '0');

describe('MongoDB outbox relay (real MongoDB server + real Kafka)', () => {
  let mongo: MongoClient;
  let kafka: Kafka;
  const dbName = uniqueName('outbox');
  const topic = uniqueName('test.outbox') as TopicName;

  beforeAll(async () => {
    mongo = await createMongoClient(env.mongoUrl).connect();
    kafka = new Kafka({ clientId: 'outbox-test', brokers: env.kafkaBrokers, sasl: env.kafkaSasl, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
    await admin.disconnect();
    await OutboxRelay.ensureIndexes(mongo.db(dbName), ['aggregates']);
  });
  afterAll(async () => {
    await mongo.db(dbName).dropDatabase();
    await mongo.close();
  });

  /** State change and event in one atomic single-document update. */
  async function change(n: number): Promise<string> {
    const msg = createMessage('inventory.commands.v1', 'ReleaseStock', { order_id: id(n) }, { correlation_id: `c${n}`, causation_id: null });
    const routed = { ...msg, topic } as typeof msg;
    await mongo.db(dbName).collection<Aggregate>('aggregates').updateOne(
      { _id: id(n) },
      { $set: { state: 'released' }, $inc: { version: 1 }, ...outboxPush([routed]) },
      { upsert: true },
    );
    return msg.envelope.id;
  }

  it('loses nothing when the relay is killed mid-way (SIGKILL), and drains after a restart', async () => {
    const total = 400;
    const ids: string[] = [];
    for (let n = 1; n <= total; n++) ids.push(await change(n));

    // The relay runs in node itself (tsx as a loader, not the tsx CLI, which would leave the real
    // process as an orphaned grandchild), in its own process group so the kill reaches everything.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(__dirname, '../test/relay-child.ts'), env.mongoUrl, dbName, 'aggregates', env.kafkaBrokers.join(',')],
      { stdio: ['ignore', 'pipe', 'inherit'], cwd: join(__dirname, '../../../..'), detached: true, env: { ...process.env, TSX_TSCONFIG_PATH: 'tsconfig.base.json' } },
    );
    const exited = new Promise((r) => child.once('exit', r));
    // Kill it as soon as it has published something but not everything.
    await collectFrom(kafka, [topic], (all) => all.length >= 20, 60_000);
    process.kill(-child.pid!, 'SIGKILL');
    await exited;

    const coll = mongo.db(dbName).collection('aggregates');
    const left = await coll.countDocuments({ [`${OUTBOX_FIELD}.0`]: { $exists: true } });
    console.log(`relay killed with ${left} of ${total} documents still holding outbox entries`);
    expect(left).toBeGreaterThan(0);

    const publisher = new KafkaPublisher(createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'relay-2', logger }));
    const relay = new OutboxRelay({ db: mongo.db(dbName), collections: ['aggregates'], publisher, logger, name: 'test-relay', leaseMs: 2000 });
    // The dead relay's lease expires, then this one takes over.
    await waitFor(async () => (await relay.drainOnce()) >= 0 && (await coll.countDocuments({ [`${OUTBOX_FIELD}.0`]: { $exists: true } })) === 0, 60_000, 'outbox drained');
    await publisher.disconnect();

    const seen = await collectFrom(kafka, [topic], (all) => new Set(all.map((m) => JSON.parse(String(m.message.value)).id)).size >= total, 60_000);
    const seenIds = new Set(seen.map((m) => JSON.parse(String(m.message.value)).id as string));
    expect(ids.filter((i) => !seenIds.has(i))).toEqual([]);
    console.log(`published ${seen.length} records for ${total} events (${seen.length - total} duplicates from the crash window)`);
  });

  it('a second relay does not publish while the first holds the lease', async () => {
    const db = mongo.db(dbName);
    const p = new KafkaPublisher(createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'relay-lease', logger }));
    const a = new OutboxRelay({ db, collections: ['aggregates'], publisher: p, logger, name: 'lease-test', leaseMs: 30_000 });
    const b = new OutboxRelay({ db, collections: ['aggregates'], publisher: p, logger, name: 'lease-test', leaseMs: 30_000 });
    await change(10_001);
    expect(await a.drainOnce()).toBe(1);
    await change(10_002);
    expect(await b.drainOnce()).toBe(0);
    expect(await a.drainOnce()).toBe(1);
    await a.stop();
    expect(await b.drainOnce()).toBe(0); // nothing pending, but b can now take the lease
    await p.disconnect();
  });

  it('gathers the writes nudged within its window into one pass (ADR 0015 §1)', async () => {
    const watched = await createMongoClient(env.mongoUrl, { monitorCommands: true }).connect();
    const commands: string[] = [];
    watched.on('commandStarted', (e) => {
      const target = (e.command as Record<string, unknown>)[e.commandName];
      if (target === 'aggregates' && (e.commandName === 'find' || e.commandName === 'update')) commands.push(e.commandName);
    });
    const p = new KafkaPublisher(createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'relay-gather', logger }));
    const relay = new OutboxRelay({ db: watched.db(dbName), collections: ['aggregates'], publisher: p, logger, name: 'gather-test', gatherMs: 6000, pollIntervalMs: 60_000, idlePollMaxMs: 60_000 });
    const coll = mongo.db(dbName).collection('aggregates');
    const pending = () => coll.countDocuments({ [`${OUTBOX_FIELD}.0`]: { $exists: true } });
    relay.start(); // the first pass runs at once and finds nothing of this test's
    await waitFor(async () => commands.includes('find'), 30_000, 'first pass');
    await new Promise((r) => setTimeout(r, 200));
    commands.length = 0;
    for (let i = 0; i < 5; i++) {
      await change(30_000 + i);
      relay.nudge();
      await new Promise((r) => setTimeout(r, 40));
    }
    expect(await pending()).toBe(5); // nothing went out while the window was open
    await waitFor(async () => (await pending()) === 0, 30_000, 'gathered pass published');
    // one read and one removal for the five writes: without the window each nudge starts a pass
    expect(commands).toEqual(['find', 'update']);
    await relay.stop();
    await p.disconnect();
    await watched.close();
  });

  it('renews its lease once per half-life, not on every pass and collection', async () => {
    const db = mongo.db(dbName);
    const p = new KafkaPublisher(createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'relay-renewals', logger }));
    const relay = new OutboxRelay({ db, collections: ['aggregates', 'others'], publisher: p, logger, name: 'renewal-test', leaseMs: 60_000 });
    const changes = db.collection('outbox_leases').watch([{ $match: { 'documentKey._id': 'renewal-test' } }]);
    const writes: string[] = [];
    changes.on('change', (c) => writes.push(c.operationType));
    await new Promise((r) => setTimeout(r, 300)); // the change stream is open before the first pass
    for (let i = 0; i < 10; i++) {
      await change(20_000 + i);
      expect(await relay.drainOnce()).toBe(1);
    }
    await new Promise((r) => setTimeout(r, 500));
    await changes.close();
    // The first pass takes the lease (an insert); 10 passes over 2 collections renew it nowhere near 20 times.
    expect(writes).toEqual(['insert']);
    await relay.stop();
    await p.disconnect();
  });
});
