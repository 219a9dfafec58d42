import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { ChangeStreamDocument, Db, MongoClient } from 'mongodb';
import pino from 'pino';
import { createMessage, OutgoingMessage, TopicName } from '@mw/contracts';
import { createMongoClient } from '@mw/persistence';
import { collectFrom, Collected, testEnv, uniqueName, waitFor } from '@mw/testing';
import { createKafka, ensureTopics } from '../kafka/kafka';
import { KafkaPublisher } from '../publisher/publisher';
import { listParked, requeueParked } from './outbox-parked';
import { OutboxRelay } from './outbox-relay';
import { acquireLease, LEASES_COLLECTION, releaseLease } from './outbox-lease';
import { loadProgress, storeProgress } from './outbox-stream';
import { outboxPush, OUTBOX_FIELD, OutboxEntry, toOutboxEntries } from './outbox';

const env = testEnv();
const logger = pino({ level: 'silent' });
const hex = (n: number): string => n.toString(16).padStart(24, '0');
const idOf = (r: Collected): string => JSON.parse(String(r.message.value)).id as string;

interface Aggregate {
  _id: string;
  version?: number;
  [OUTBOX_FIELD]?: OutboxEntry[];
}

describe("outbox relay, 'stream' progress: a change stream and one progress write per pass (real MongoDB + real Kafka)", () => {
  let mongo: MongoClient;
  let kafka: Kafka;

  beforeAll(async () => {
    mongo = await createMongoClient(env.mongoUrl).connect();
    kafka = new Kafka({
      clientId: 'outbox-stream-test',
      brokers: env.kafkaBrokers,
      sasl: env.kafkaSasl,
      logLevel: logLevel.NOTHING,
    });
  });
  afterAll(async () => {
    await mongo.close();
  });

  /** A fresh database and topic; `write` pushes `n` entries onto a document as a service's transition does. */
  async function fixture(label: string) {
    const db: Db = mongo.db(uniqueName(`outbox_stream_${label}`));
    const topic = uniqueName(`test.outbox.stream.${label}`) as TopicName;
    await ensureTopics(kafka, [topic], 3);
    await OutboxRelay.ensureIndexes(db, ['aggregates']);
    const coll = db.collection<Aggregate>('aggregates');
    const written = new Map<string, string[]>();
    const entries = (key: string, n: number, at = new Date()): OutboxEntry[] =>
      toOutboxEntries(
        Array.from({ length: n }, () => {
          const msg = createMessage(
            'inventory.commands.v1',
            'ReleaseStock',
            { order_id: key },
            { correlation_id: label, causation_id: null },
          );
          return { ...msg, topic } as OutgoingMessage;
        }),
        at,
      );
    async function write(key: string, n: number): Promise<void> {
      const msgs = Array.from({ length: n }, () => {
        const msg = createMessage(
          'inventory.commands.v1',
          'ReleaseStock',
          { order_id: key },
          { correlation_id: label, causation_id: null },
        );
        return { ...msg, topic } as OutgoingMessage;
      });
      // the first write of a document upserts it (reported as a whole `_outbox`), later ones push onto it (`_outbox.<n>`)
      await coll.updateOne({ _id: key }, { $inc: { version: 1 }, ...outboxPush(msgs) }, { upsert: true });
      written.set(key, [...(written.get(key) ?? []), ...msgs.map((m) => m.envelope.id)]);
    }
    const allIds = (): Set<string> => new Set([...written.values()].flat());
    /** Every written entry consumed at least once (read_committed). */
    const consumedAll = (timeoutMs = 90_000): Promise<Collected[]> =>
      collectFrom(
        kafka,
        [topic],
        (all) => {
          const seen = new Set(all.map(idOf));
          return [...allIds()].every((i) => seen.has(i));
        },
        timeoutMs,
      );
    const relay = (
      name: string,
      publisher: KafkaPublisher,
      extra: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {},
    ): OutboxRelay =>
      new OutboxRelay({
        db,
        collections: ['aggregates'],
        publisher,
        logger,
        name,
        leaseMs: 2000,
        pollIntervalMs: 100,
        progress: 'stream',
        ...extra,
      });
    const progressOf = (name: string) =>
      db
        .collection<{ _id: string; progress?: { token: unknown; at: Date } }>(LEASES_COLLECTION)
        .findOne({ _id: name });
    return { db, topic, coll, written, entries, write, allIds, consumedAll, relay, progressOf };
  }

  const newPublisher = (clientId: string): KafkaPublisher =>
    new KafkaPublisher(createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId, logger }));

  it('publishes every entry in per-document order, scanning what was there and following the stream after, and never writes to the documents', async () => {
    const f = await fixture('order');
    const keys = Array.from({ length: 20 }, (_, i) => hex(i + 1));
    // before the relay ever ran: no progress, so its first pass is the recovery scan
    for (const k of keys) await f.write(k, 1);
    const changes: ChangeStreamDocument[] = [];
    const watcher = f.coll.watch();
    watcher.on('change', (c) => changes.push(c));
    await new Promise((r) => setTimeout(r, 300)); // the watcher is open before anything below
    const publisher = newPublisher('relay-stream-order');
    const relay = f.relay('order', publisher, { batchSize: 7 });
    let ours = 0;
    try {
      relay.start();
      // the scan is done once its first progress is stored (a write racing the scan may go out twice: at least once)
      await waitFor(
        async () => (await f.progressOf('order'))?.progress?.token,
        60_000,
        'the recovery scan done',
      );
      // while it runs: pushes onto existing documents (one entry, or two in one `$push: {$each}`)
      for (let round = 0; round < 4; round++) {
        for (const k of keys) {
          await f.write(k, (round + Number(k.slice(-1))) % 2 === 0 ? 2 : 1);
          ours++;
        }
      }
      const seen = await f.consumedAll();
      await new Promise((r) => setTimeout(r, 1500)); // let a write of the relay's reach the watcher, if it made one
      // the documents saw the test's writes only: no `$pull`, no write of the relay's
      expect(changes.length).toBe(ours);
      expect(changes.every((c) => c.operationType === 'update')).toBe(true);
      // each document's entries exactly once, in the order they were written
      const perKey = new Map<string, string[]>();
      for (const r of seen)
        perKey.set(String(r.message.key), [...(perKey.get(String(r.message.key)) ?? []), idOf(r)]);
      for (const k of keys) expect(perKey.get(k)).toEqual(f.written.get(k));
      const left = await f.coll.find({}).toArray();
      expect(left.reduce((n, d) => n + (d[OUTBOX_FIELD]?.length ?? 0), 0)).toBe(f.allIds().size); // the entries stay
      expect((await f.progressOf('order'))?.progress?.token).toBeDefined();
    } finally {
      await watcher.close();
      await relay.stop();
      await publisher.disconnect();
      await f.db.dropDatabase();
    }
  }, 240_000);

  it('parks an entry for a missing topic: the later entries of its document wait (across a restart), the others flow; a requeue publishes them', async () => {
    const f = await fixture('parked');
    const missing = uniqueName('test.outbox.stream.missing') as TopicName;
    const good = f.entries(hex(1), 4);
    const [a, , c, d] = good;
    const b = { ...f.entries(hex(1), 1)[0]!, topic: missing };
    const publisher = newPublisher('relay-stream-parked');
    let relay = f.relay('parked', publisher);
    try {
      await waitFor(
        async () => (await relay.drainOnce()) >= 0 && (await f.progressOf('parked'))?.progress?.token,
        30_000,
        'first progress stored',
      );
      await f.coll.insertOne({ _id: hex(1), [OUTBOX_FIELD]: [a!, b, c!] });
      await waitFor(
        async () =>
          (await relay.drainOnce()) >= 0 &&
          (await f.coll.findOne({ _id: hex(1) }))?.[OUTBOX_FIELD]?.[1]?.parked,
        30_000,
        'b parked',
      );
      await f.coll.updateOne({ _id: hex(1) }, { $push: { [OUTBOX_FIELD]: d! } });
      await f.write(hex(2), 1);
      await waitFor(async () => (await relay.drainOnce()) === 0, 30_000, 'caught up');
      // a restart: the blocked document comes back with the stored progress
      await relay.stop();
      relay = f.relay('parked', publisher);
      const e = f.entries(hex(1), 1)[0]!;
      await f.coll.updateOne({ _id: hex(1) }, { $push: { [OUTBOX_FIELD]: e } });
      await f.write(hex(2), 1);
      await waitFor(
        async () => (await relay.drainOnce()) >= 0 && (await relay.drainOnce()) === 0,
        30_000,
        'caught up after the restart',
      );
      const before = await collectFrom(
        kafka,
        [f.topic],
        (all) => [...f.allIds(), a!.id].every((i) => all.some((r) => idOf(r) === i)),
        60_000,
      ); // hex(2)'s entries, and a
      const seenBefore = new Set(before.map(idOf));
      expect([c!.id, d!.id, e.id].filter((i) => seenBefore.has(i))).toEqual([]); // waiting behind b

      // the operator's listing starts at the parked entry (a, sent, stays in the document before it)
      expect((await listParked(f.db, ['aggregates'])).map((p) => p.entries.map((x) => x.id))).toEqual([
        [b.id, c!.id, d!.id, e.id],
      ]);
      await ensureTopics(kafka, [missing], 1);
      expect(await requeueParked(f.db, ['aggregates'], [hex(1)])).toBe(1);
      await waitFor(
        async () => (await relay.drainOnce()) >= 0 && (await relay.drainOnce()) === 0,
        30_000,
        'requeued document published',
      );
      await collectFrom(kafka, [missing], (all) => all.some((r) => idOf(r) === b.id), 30_000);
      const after = await collectFrom(
        kafka,
        [f.topic],
        (all) => [c!.id, d!.id, e.id].every((i) => all.some((r) => idOf(r) === i)),
        30_000,
      );
      expect(after.filter((r) => String(r.message.key) === hex(1)).map(idOf)).toEqual([
        a!.id,
        c!.id,
        d!.id,
        e.id,
      ]);
    } finally {
      await relay.stop();
      await publisher.disconnect();
      await f.db.dropDatabase();
    }
  }, 240_000);

  it('a relay that lost its lease cannot move the stored progress (the write is filtered by owner and epoch)', async () => {
    const db = mongo.db(uniqueName('outbox_stream_progress'));
    try {
      const a = await acquireLease(db, 'p', 'owner-a', 60_000);
      const progress = (token: string) => ({ token: { _data: token }, at: new Date(), blocked: [] });
      expect(await storeProgress(db, 'p', 'owner-a', a.epoch, progress('aa'))).toBe(true);
      await releaseLease(db, 'p', 'owner-a');
      const b = await acquireLease(db, 'p', 'owner-b', 60_000);
      expect(b.epoch).toBe(a.epoch + 1);
      // A, paused past its lease, finishes a pass: its store is refused
      expect(await storeProgress(db, 'p', 'owner-a', a.epoch, progress('a2'))).toBe(false);
      expect(await storeProgress(db, 'p', 'owner-a', b.epoch, progress('a3'))).toBe(false);
      expect(await storeProgress(db, 'p', 'owner-b', b.epoch, progress('bb'))).toBe(true);
      expect((await loadProgress(db, 'p'))?.token).toEqual({ _data: 'bb' });
    } finally {
      await db.dropDatabase();
    }
  });

  /** Runs relay-child.ts in 'stream' mode, dying in its `pass`-th publishing pass at `killAt`. */
  function spawnDying(db: Db, killAt: 'before-commit' | 'before-store', pass: number) {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(__dirname, '../test/relay-child.ts'),
        env.mongoUrl,
        db.databaseName,
        'aggregates',
        env.kafkaBrokers.join(','),
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        cwd: join(__dirname, '../../../..'),
        detached: true,
        env: {
          ...process.env,
          TSX_TSCONFIG_PATH: 'tsconfig.base.json',
          RELAY_PROGRESS: 'stream',
          RELAY_KILL_AT: killAt,
          RELAY_KILL_PASS: String(pass),
        },
      },
    );
    const exited = new Promise<number | null>((r) =>
      child.once('exit', (code, signal) => r(signal === 'SIGKILL' ? -9 : code)),
    );
    let out = '';
    child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    return { child, exited, output: () => out };
  }

  for (const killAt of ['before-commit', 'before-store'] as const) {
    it(`loses nothing when the relay is SIGKILLed ${killAt === 'before-commit' ? 'with a pass sent and its Kafka commit not made' : 'after the Kafka commit and before the progress store'}: the next owner resends from the stored token`, async () => {
      const f = await fixture(killAt.replace('-', '_'));
      const keys = Array.from({ length: 12 }, (_, i) => hex(i + 1));
      const child = spawnDying(f.db, killAt, 3);
      const publisher = newPublisher(`relay-stream-${killAt}`);
      const next = f.relay('test-relay', publisher);
      try {
        // the child has scanned (nothing there) and stored its first progress: what follows goes through its stream
        await waitFor(
          async () => (await f.progressOf('test-relay'))?.progress?.token,
          60_000,
          'the child relay stored its first progress',
        );
        for (let round = 0; round < 5; round++) for (const k of keys) await f.write(k, 1);
        expect(await child.exited).toBe(-9);
        expect(child.output()).toContain(`relay-dying ${killAt}`);
        // the dead relay's lease expires (2 s), the next owner resumes from the token the child stored last
        await waitFor(
          async () => (await next.drainOnce()) > 0,
          60_000,
          'the next relay took over and published',
        );
        await waitFor(async () => (await next.drainOnce()) === 0, 60_000, 'the next relay caught up');
        const seen = await f.consumedAll();
        const seenIds = new Set(seen.map(idOf));
        expect([...f.allIds()].filter((i) => !seenIds.has(i))).toEqual([]);
        const dups = seen.length - seenIds.size;
        console.log(
          `${killAt}: ${f.allIds().size} entries, ${seen.length} records consumed (${dups} resent)`,
        );
        // a pass committed and not recorded is resent: the at-least-once window shows as duplicates
        if (killAt === 'before-store') expect(dups).toBeGreaterThan(0);
        // per key, the first sighting of each entry is in written order
        const perKey = new Map<string, string[]>();
        for (const r of seen) {
          const list = perKey.get(String(r.message.key)) ?? [];
          if (!list.includes(idOf(r))) list.push(idOf(r));
          perKey.set(String(r.message.key), list);
        }
        for (const k of keys) expect(perKey.get(k)).toEqual(f.written.get(k));
      } finally {
        if (child.child.exitCode === null && child.child.signalCode === null)
          process.kill(-child.child.pid!, 'SIGKILL');
        await next.stop();
        await publisher.disconnect();
        await f.db.dropDatabase();
      }
    }, 300_000);
  }

  for (const lost of [
    'a token the oplog no longer holds',
    'a token that does not parse',
    'no progress at all',
  ] as const) {
    it(`recovers with ${lost}: the scan publishes what the stream would have, from the stored time minus the margin`, async () => {
      const f = await fixture('lost');
      const keys = Array.from({ length: 8 }, (_, i) => hex(i + 1));
      const publisher = newPublisher('relay-stream-lost');
      const first = f.relay('lost', publisher);
      const again = f.relay('lost', publisher, { recoveryMarginMs: 60_000 });
      try {
        for (const k of keys) await f.write(k, 1);
        await waitFor(
          async () => (await first.drainOnce()) >= 0 && (await f.progressOf('lost'))?.progress?.token,
          30_000,
          'first progress stored',
        );
        await waitFor(async () => (await first.drainOnce()) === 0, 30_000, 'first relay caught up');
        await first.stop();
        // written while no relay runs: only the recovery scan can find these
        for (const k of keys) await f.write(k, 2);
        // an entry older than (progress time − margin) that no relay sent: out of the scan's reach, by design
        const ancient = f.entries(hex(999), 1, new Date(Date.now() - 3_600_000));
        await f.coll.insertOne({ _id: 'ancient', [OUTBOX_FIELD]: ancient });
        const leases = f.db.collection<{ _id: string }>(LEASES_COLLECTION);
        if (lost === 'no progress at all')
          await leases.updateOne({ _id: 'lost' }, { $unset: { progress: '' } });
        else {
          // a real token's layout with its cluster time set to 1970 (ChangeStreamHistoryLost), or one that is not hex (FailedToParse)
          const token =
            lost === 'a token the oplog no longer holds'
              ? {
                  _data:
                    '8200000001000000012B022C0100296E5A1004C353A3CFF24D442C8598022D303A413C461E5F6964002B080004',
                }
              : { _data: 'not-a-token' };
          await leases.updateOne({ _id: 'lost' }, { $set: { 'progress.token': token } });
        }
        await waitFor(async () => (await again.drainOnce()) > 0, 60_000, 'the recovery scan published');
        const seen = await collectFrom(
          kafka,
          [f.topic],
          (all) => {
            const ids = new Set(all.map(idOf));
            return (
              [...f.allIds()].every((i) => ids.has(i)) &&
              (lost !== 'no progress at all' || ids.has(ancient[0]!.id))
            );
          },
          60_000,
        );
        const ids = new Set(seen.map(idOf));
        expect([...f.allIds()].filter((i) => !ids.has(i))).toEqual([]);
        // with a stored time the scan starts a margin before it; with none it takes everything
        expect(ids.has(ancient[0]!.id)).toBe(lost === 'no progress at all');
        // and it follows the stream from before the scan: a write after it is published
        await f.write(keys[0]!, 1);
        await waitFor(async () => (await again.drainOnce()) > 0, 30_000, 'the stream after the scan');
        await collectFrom(
          kafka,
          [f.topic],
          (all) => new Set(all.map(idOf)).has(f.written.get(keys[0]!)!.at(-1)!),
          30_000,
        );
        expect((await f.progressOf('lost'))?.progress?.token).not.toEqual({ _data: 'not-a-token' });
      } finally {
        await first.stop();
        await again.stop();
        await publisher.disconnect();
        await f.db.dropDatabase();
      }
    }, 240_000);
  }
});
