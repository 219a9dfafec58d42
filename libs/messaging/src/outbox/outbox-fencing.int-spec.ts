import { Kafka, logLevel } from 'kafkajs';
import { Db, MongoClient } from 'mongodb';
import pino from 'pino';
import { createMessage, OutgoingMessage, TopicName } from '@mw/contracts';
import { createMongoClient } from '@mw/persistence';
import { collectFrom, testEnv, uniqueName, waitFor } from '@mw/testing';
import { createKafka, ensureTopics } from '../kafka/kafka';
import { KafkaPublisher } from '../publisher/publisher';
import { TransactionalSender, TransactionalSenderOptions } from '../publisher/transactional-sender';
import { OutboxRelay } from './outbox-relay';
import { outboxPush, OUTBOX_FIELD } from './outbox';

const env = testEnv();
const logger = pino({ level: 'silent' });
const LEASE_MS = 1500;

/** The first publish waits here until the test opens it; later ones pass. */
class Gate {
  private open!: () => void;
  private readonly opened = new Promise<void>((r) => (this.open = r));
  private reachedAt: (() => void) | undefined;
  readonly reached = new Promise<void>((r) => (this.reachedAt = r));
  private used = false;
  async pass(): Promise<void> {
    if (this.used) return;
    this.used = true;
    this.reachedAt?.();
    await this.opened;
  }
  release(): void {
    this.open();
  }
}

/**
 * The real publisher, paused once mid-publish: before the send, or (transactions only) with the
 * records sent and the commit not yet made. Nothing is mocked: every record goes to the broker.
 */
class PausingPublisher extends KafkaPublisher {
  constructor(
    kafka: Kafka,
    private readonly gate: Gate,
    private readonly stage: 'before-send' | 'before-commit',
  ) {
    super(kafka);
  }
  override transactional(id: string, opts: TransactionalSenderOptions = {}): TransactionalSender {
    if (this.stage === 'before-commit') return super.transactional(id, { ...opts, beforeCommit: () => this.gate.pass() });
    const inner = super.transactional(id, opts);
    const gate = this.gate;
    return {
      get ready() {
        return inner.ready;
      },
      init: () => inner.init(),
      send: async (records) => {
        await gate.pass();
        await inner.send(records);
      },
      missingTopics: (t) => inner.missingTopics(t),
      close: () => inner.close(),
    };
  }
  /** A relay that publishes without a transaction goes through here: pause it the same way. */
  override async publishAll(messages: readonly OutgoingMessage[]): Promise<void> {
    await this.gate.pass();
    await super.publishAll(messages);
  }
}

describe('outbox relay fencing: two relays, one paused mid-publish (real MongoDB + real Kafka)', () => {
  let mongo: MongoClient;
  let kafka: Kafka;

  beforeAll(async () => {
    mongo = await createMongoClient(env.mongoUrl).connect();
    kafka = new Kafka({ clientId: 'outbox-fencing-test', brokers: env.kafkaBrokers, sasl: env.kafkaSasl, logLevel: logLevel.NOTHING });
  });
  afterAll(async () => {
    await mongo.close();
  });

  // 'stream' (ADR 0015 §2): A pauses in its first pass, the recovery scan; B resumes nothing of A's (A stored no progress)
  for (const progress of ['pull', 'stream'] as const)
  for (const stage of ['before-send', 'before-commit'] as const) {
    it(`keeps per-key order when the old owner resumes after the new one published newer entries (paused ${stage}, progress ${progress})`, async () => {
      const db: Db = mongo.db(uniqueName('outbox_fence'));
      const topic = uniqueName('test.outbox.fence') as TopicName;
      await ensureTopics(kafka, [topic], 3);
      await OutboxRelay.ensureIndexes(db, ['aggregates']);
      const keys = [1, 2, 3, 4, 5, 6].map((n) => n.toString(16).padStart(24, 'a'));
      const written = new Map<string, string[]>(keys.map((k) => [k, []]));
      const coll = db.collection<{ _id: string; version?: number }>('aggregates');
      async function writeVersion(): Promise<void> {
        for (const key of keys) {
          const msg = createMessage('inventory.commands.v1', 'ReleaseStock', { order_id: key }, { correlation_id: 'fence', causation_id: null });
          await coll.updateOne({ _id: key }, { $inc: { version: 1 }, ...outboxPush([{ ...msg, topic } as typeof msg]) }, { upsert: true });
          written.get(key)!.push(msg.envelope.id);
        }
      }
      // 'pull': every entry removed; 'stream': entries stay, so a pass of B's that finds nothing new
      const drained = async (): Promise<boolean> =>
        progress === 'pull' ? (await coll.countDocuments({ [`${OUTBOX_FIELD}.0`]: { $exists: true } })) === 0 : (await b.drainOnce()) === 0;

      const gate = new Gate();
      const pausedPublisher = new PausingPublisher(createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'relay-a', logger }), gate, stage);
      const publisherB = new KafkaPublisher(createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'relay-b', logger }));
      const a = new OutboxRelay({ db, collections: ['aggregates'], publisher: pausedPublisher, logger, name: 'fence', leaseMs: LEASE_MS, progress });
      const b = new OutboxRelay({ db, collections: ['aggregates'], publisher: publisherB, logger, name: 'fence', leaseMs: LEASE_MS, progress });
      try {
        await writeVersion(); // v1 of every key
        // A takes the lease, reads v1 and stops mid-publish (a GC pause, a stalled socket, SIGSTOP).
        const aPass = a.drainOnce().then(
          (n) => ({ ok: true as const, n }),
          (e: unknown) => ({ ok: false as const, e }),
        );
        await gate.reached;
        // A's lease runs out by the server's clock; B takes over and publishes v1, then v2 and v3.
        await waitFor(async () => (await b.drainOnce()) > 0, 30_000, 'relay B takes over after the lease expired');
        await waitFor(async () => (await b.drainOnce()) >= 0 && (await drained()), 30_000, 'B drained v1');
        await writeVersion();
        await waitFor(async () => (await b.drainOnce()) >= 0 && (await drained()), 30_000, 'B drained v2');
        await writeVersion();
        await waitFor(async () => (await b.drainOnce()) >= 0 && (await drained()), 30_000, 'B drained v3');

        // A wakes up and carries on with what it read before the pause.
        gate.release();
        const aResult = await aPass;
        // v4 goes out after A's attempt settled: anything A got into the log sits before it.
        await writeVersion();
        await waitFor(async () => (await b.drainOnce()) >= 0 && (await drained()), 30_000, 'B drained v4');

        const lastIds = new Set(keys.map((k) => written.get(k)![3]!));
        const seen = await collectFrom(kafka, [topic], (all) => all.filter((m) => lastIds.has(JSON.parse(String(m.message.value)).id)).length >= keys.length, 60_000);
        const order = new Map<string, string[]>(keys.map((k) => [k, []]));
        for (const m of seen) order.get(String(m.message.key))!.push(JSON.parse(String(m.message.value)).id as string);
        // Per key: exactly v1..v4, in order — no older entry after a newer one, nothing from the fenced relay.
        for (const key of keys) expect(order.get(key)).toEqual(written.get(key));
        expect(aResult.ok).toBe(false);
        // and A, no longer the owner, publishes nothing
        expect(await a.drainOnce()).toBe(0);
      } finally {
        gate.release();
        await a.stop().catch(() => undefined);
        await b.stop();
        await pausedPublisher.disconnect();
        await publisherB.disconnect();
        await db.dropDatabase();
      }
    });
  }
});
