import type { Consumer, Kafka } from 'kafkajs';
import type { CommandStartedEvent } from 'mongodb';
import pino from 'pino';
import type { OutgoingMessage } from '@mw/contracts';
import { createKafka, ensureTopics, KafkaPublisher } from '@mw/messaging';
import { createMongoClient } from '@mw/persistence';
import { Periodic } from '@mw/platform';
import { testEnv, uniqueName, waitFor } from '@mw/testing';
import { LEDGER, LedgerRepository } from '../ledger/ledger.repository';
import { InventoryEvents } from '../outbox/inventory-events';
import { oid } from '../test/harness';
import { LevelPublisher, StockPass } from './stock-pass';
import { IDLE_FACTOR, stockPump } from './stock-pump';
import { StockRepository } from './stock.repository';

/** A repository whose read of the pass's work lets another write land right after it (the level moves between read and publish). */
class MovedAfterRead extends StockRepository {
  between: (() => Promise<unknown>) | undefined;
  override async pendingWork(limit: number) {
    const docs = await super.pendingWork(limit);
    const write = this.between;
    this.between = undefined;
    await write?.();
    return docs;
  }
}

/** A publish that fails after the events were sent (acks=all): as a process killed between the publish and the clear, or a send whose answer was lost. */
class DiesAfterPublish implements LevelPublisher {
  constructor(private readonly inner: LevelPublisher) {}
  async publishAll(messages: readonly OutgoingMessage[]): Promise<void> {
    await this.inner.publishAll(messages);
    throw new Error('killed after the publish');
  }
}

type Level = { product_id: string; zone: string; available: number; version: number };

/**
 * The stock pass (StockLevelChanged and the ledger) on the real replica set and Kafka, its MongoDB
 * commands counted with the driver's command monitoring and its events read back from a private
 * topic: a pass costs one read, one ledger insert and one bulkWrite whatever the number of products,
 * each document written once; run as a `stockPump`, an idle period costs a backed-off read and no
 * write, and no level change or ledger entry is lost (a write in this process runs the backed-off
 * pass at once; one in another process is found by the backed-off read; a level that moves between
 * the read and the clear stays dirty and is published again with its newer version, its entries
 * moved all the same; a failed publish publishes the same level again and still moves the ledger).
 */
describe('the stock pass', () => {
  const env = testEnv();
  const client = createMongoClient(env.mongoUrl, { monitorCommands: true });
  const db = client.db(uniqueName('inventory_levels'));
  const ledger = new LedgerRepository(db);
  const topic = uniqueName('test.levels');
  const stock = new MovedAfterRead(db);
  const otherProcess = new StockRepository(db); // its writes kick nothing here
  const logger = pino({ level: 'silent' });
  let kafka: Kafka;
  let publisher: KafkaPublisher;
  let reader: Consumer;
  let pass: StockPass;
  /** StockLevelChanged payloads read back from the topic, per product, in arrival order. */
  const seen = new Map<string, Level[]>();
  let pump: Periodic | undefined;
  const commands: string[] = [];
  /** Statements per `update` command: one per document written. */
  const statements: number[] = [];
  const record = (e: CommandStartedEvent) => {
    if (e.databaseName !== db.databaseName) return;
    commands.push(e.commandName);
    if (e.commandName === 'update') statements.push((e.command['updates'] as unknown[]).length);
  };
  const counted = async (run: () => Promise<unknown>) => {
    commands.splice(0);
    statements.splice(0);
    await run();
    const done = commands.splice(0);
    return {
      reads: done.filter((c) => c === 'find').length,
      writes: done.filter((c) => c !== 'find'),
      statements: statements.splice(0),
    };
  };
  /** What a document still owes: its flag and its entries not yet moved. */
  const owed = async (p: string) => {
    const doc = await stock.coll.findOne({ product_id: p, zone: 'MSK' });
    return { dirty: doc?.level_dirty === true, entries: doc?._ledger?.length ?? 0 };
  };
  const inLedger = (p: string) => db.collection(LEDGER).countDocuments({ product_id: p });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const levelsOf = (p: string): Level[] => seen.get(p) ?? [];
  /** Waits for `n` levels of `p` on the topic, then a little longer to be sure no more arrive. */
  const published = async (p: string, n: number): Promise<Level[]> => {
    await waitFor(async () => levelsOf(p).length >= n, 15_000, `${n} levels of ${p} on the topic`);
    await sleep(300);
    return levelsOf(p);
  };
  /** The pump as the service runs it, at `intervalMs`; waits until it has backed off all the way. */
  async function idlePump(intervalMs: number): Promise<Periodic> {
    pump = stockPump(
      'stock-pass',
      intervalMs,
      () => pass.runOnce().then((r) => r.dirty + r.copied),
      stock.activity,
      logger,
    );
    pump.start();
    const backedOff = pump;
    await waitFor(
      async () => backedOff.currentDelayMs === intervalMs * IDLE_FACTOR,
      30_000,
      'the pump backed off',
    );
    return backedOff;
  }

  beforeAll(async () => {
    await client.connect();
    await stock.ensureIndexes();
    await ledger.ensureIndexes();
    kafka = createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'levels-test', logger });
    await ensureTopics(kafka, [topic], 1);
    publisher = new KafkaPublisher(kafka);
    pass = new StockPass(stock, ledger, new InventoryEvents(topic), publisher);
    reader = kafka.consumer({ groupId: uniqueName('levels-reader'), allowAutoTopicCreation: false, maxWaitTimeInMs: 100 });
    await reader.connect();
    await reader.subscribe({ topics: [topic], fromBeginning: true });
    await reader.run({
      eachMessage: async ({ message }) => {
        const e = JSON.parse(message.value?.toString() ?? '{}') as { type: string; payload: Level };
        if (e.type === 'StockLevelChanged') seen.set(e.payload.product_id, [...levelsOf(e.payload.product_id), e.payload]);
      },
    });
    client.on('commandStarted', record);
  }, 60_000);
  afterEach(async () => {
    await pump?.stop();
    pump = undefined;
  });
  afterAll(async () => {
    client.off('commandStarted', record);
    await reader?.disconnect();
    await publisher?.disconnect();
    await db.dropDatabase();
    await client.close();
  });

  it('publishes the levels of three changed products and moves their entries with one read, one copy and one write', async () => {
    const products = [oid(0x91, 1), oid(0x91, 2), oid(0x91, 3)];
    for (const p of products) await stock.restock(p, 'MSK', 5, 'delivery');
    // the read, the ledger copy, one bulkWrite in which each document is written once (flag cleared, entries pulled)
    expect(await counted(() => pass.runOnce())).toEqual({ reads: 1, writes: ['insert', 'update'], statements: [3] });
    for (const p of products) {
      expect(await published(p, 1)).toEqual([{ product_id: p, zone: 'MSK', available: 5, version: 1 }]);
      expect({ owed: await owed(p), ledger: await inLedger(p) }).toEqual({ owed: { dirty: false, entries: 0 }, ledger: 1 });
    }
    expect(await pass.runOnce()).toEqual({ dirty: 0, copied: 0 });
    // entries without a level change (as a sale leaves them): the documents share one statement
    for (const [i, p] of products.slice(0, 2).entries())
      await stock.coll.updateOne(
        { product_id: p, zone: 'MSK' },
        { $push: { _ledger: { _id: `sale-${i}-${db.databaseName}`, product_id: p, zone: 'MSK', kind: 'commit', qty: 1, at: new Date(Date.now() - 1000) } } },
      );
    expect(await counted(() => pass.runOnce())).toEqual({ reads: 1, writes: ['insert', 'update'], statements: [1] });
    for (const p of products.slice(0, 2)) expect({ owed: await owed(p), ledger: await inLedger(p) }).toEqual({ owed: { dirty: false, entries: 0 }, ledger: 2 });
  });

  it('an idle period costs a backed-off read and no write (at a 25 ms interval: at most 11 reads in 2 s, not 80)', async () => {
    await idlePump(25);
    const idle = await counted(() => sleep(2_000));
    expect(idle.writes).toEqual([]);
    expect(idle.statements).toEqual([]);
    expect(idle.reads).toBeLessThanOrEqual(2_000 / (25 * IDLE_FACTOR) + 1);
  });

  it('a stock write in this process runs the backed-off pass at once; one in another process is found by the backed-off read', async () => {
    const p = oid(0x91, 4);
    await idlePump(250); // the next read is 2 s away
    const wroteAt = Date.now();
    await stock.restock(p, 'MSK', 3, 'delivery');
    await waitFor(async () => levelsOf(p).length === 1, 10_000, 'the level published');
    expect({ within: Date.now() - wroteAt < 1_000, levels: levelsOf(p) }).toEqual({
      within: true,
      levels: [{ product_id: p, zone: 'MSK', available: 3, version: 1 }],
    });
    await waitFor(
      async () => pump?.currentDelayMs === 250 * IDLE_FACTOR,
      30_000,
      'the pump backed off again',
    );
    await otherProcess.restock(p, 'MSK', 2, 'second delivery');
    await waitFor(
      async () => levelsOf(p).length === 2,
      250 * IDLE_FACTOR * 3,
      "the other process's level published",
    );
    expect(levelsOf(p).at(-1)).toEqual({ product_id: p, zone: 'MSK', available: 5, version: 2 });
  });

  it('a level that moves between the read and the clear stays dirty: the next pass publishes its newer version', async () => {
    const p = oid(0x91, 5);
    await stock.restock(p, 'MSK', 4, 'delivery');
    stock.between = () => otherProcess.restock(p, 'MSK', 6, 'second delivery');
    expect(await pass.runOnce()).toEqual({ dirty: 1, copied: 1 });
    // published at version 1, which is gone: still dirty; the entry the pass read is moved all the same, the new one waits
    expect({ owed: await owed(p), ledger: await inLedger(p) }).toEqual({ owed: { dirty: true, entries: 1 }, ledger: 1 });
    expect(await pass.runOnce()).toEqual({ dirty: 1, copied: 1 });
    expect(await pass.runOnce()).toEqual({ dirty: 0, copied: 0 });
    expect({ owed: await owed(p), ledger: await inLedger(p) }).toEqual({ owed: { dirty: false, entries: 0 }, ledger: 2 });
    // carts keeps the newest version (USING TIMESTAMP version): the older event changes nothing there
    expect(await published(p, 2)).toEqual([
      { product_id: p, zone: 'MSK', available: 4, version: 1 },
      { product_id: p, zone: 'MSK', available: 10, version: 2 },
    ]);
  });

  it('a failed publish loses nothing and holds no entry back: the level stays dirty and is published again, the ledger moves', async () => {
    const p = oid(0x91, 6);
    await stock.restock(p, 'MSK', 7, 'delivery');
    const failing = new StockPass(stock, ledger, new InventoryEvents(topic), new DiesAfterPublish(publisher));
    await expect(failing.runOnce()).rejects.toThrow('killed after the publish');
    expect({ owed: await owed(p), ledger: await inLedger(p) }).toEqual({ owed: { dirty: true, entries: 0 }, ledger: 1 });
    expect(await pass.runOnce()).toEqual({ dirty: 1, copied: 0 });
    expect(await pass.runOnce()).toEqual({ dirty: 0, copied: 0 });
    const level = { product_id: p, zone: 'MSK', available: 7, version: 1 };
    expect(await published(p, 2)).toEqual([level, level]);
  });
});
