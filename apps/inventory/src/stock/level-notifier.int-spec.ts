import type { Consumer, Kafka } from 'kafkajs';
import type { CommandStartedEvent } from 'mongodb';
import pino from 'pino';
import type { OutgoingMessage } from '@mw/contracts';
import { createKafka, ensureTopics, KafkaPublisher } from '@mw/messaging';
import { createMongoClient } from '@mw/persistence';
import { Periodic } from '@mw/platform';
import { testEnv, uniqueName, waitFor } from '@mw/testing';
import { InventoryEvents } from '../outbox/inventory-events';
import { oid } from '../test/harness';
import { LevelNotifier, LevelPublisher } from './level-notifier';
import { IDLE_FACTOR, stockPump } from './stock-pump';
import { StockRepository } from './stock.repository';

/** A repository whose read of dirty levels lets another write land right after it (the level moves between read and publish). */
class MovedAfterRead extends StockRepository {
  between: (() => Promise<unknown>) | undefined;
  override async dirtyLevels(limit: number) {
    const docs = await super.dirtyLevels(limit);
    const write = this.between;
    this.between = undefined;
    await write?.();
    return docs;
  }
}

/** A process killed between the publish and the clear: the events are sent (acks=all), then the pass dies. */
class DiesAfterPublish implements LevelPublisher {
  constructor(private readonly inner: LevelPublisher) {}
  async publishAll(messages: readonly OutgoingMessage[]): Promise<void> {
    await this.inner.publishAll(messages);
    throw new Error('killed after the publish');
  }
}

type Level = { product_id: string; zone: string; available: number; version: number };

/**
 * The StockLevelChanged notifier on the real replica set and Kafka, its MongoDB commands counted
 * with the driver's command monitoring and its events read back from a private topic: a pass costs
 * one read and one bulkWrite whatever the number of products; run as a `stockPump`, an idle period
 * costs a backed-off read and no write, and no level change is lost (a write in this process runs
 * the backed-off pass at once; one in another process is found by the backed-off read; a level that
 * moves between the read and the clear stays dirty and is published again with its newer version; a
 * crash after the publish publishes the same level again).
 */
describe('the stock level notifier', () => {
  const env = testEnv();
  const client = createMongoClient(env.mongoUrl, { monitorCommands: true });
  const db = client.db(uniqueName('inventory_levels'));
  const topic = uniqueName('test.levels');
  const stock = new MovedAfterRead(db);
  const otherProcess = new StockRepository(db); // its writes kick nothing here
  const logger = pino({ level: 'silent' });
  let kafka: Kafka;
  let publisher: KafkaPublisher;
  let reader: Consumer;
  let notifier: LevelNotifier;
  /** StockLevelChanged payloads read back from the topic, per product, in arrival order. */
  const seen = new Map<string, Level[]>();
  let pump: Periodic | undefined;
  const commands: string[] = [];
  const record = (e: CommandStartedEvent) => {
    if (e.databaseName === db.databaseName) commands.push(e.commandName);
  };
  const counted = async (run: () => Promise<unknown>) => {
    commands.splice(0);
    await run();
    const done = commands.splice(0);
    return {
      reads: done.filter((c) => c === 'find').length,
      writes: done.filter((c) => c !== 'find').length,
    };
  };
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
      'level-notify',
      intervalMs,
      () => notifier.notifyOnce().then((r) => r.dirty),
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
    kafka = createKafka({ brokers: env.kafkaBrokers, sasl: env.kafkaSasl, clientId: 'levels-test', logger });
    await ensureTopics(kafka, [topic], 1);
    publisher = new KafkaPublisher(kafka);
    notifier = new LevelNotifier(stock, new InventoryEvents(topic), publisher);
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

  it('publishes the levels of three changed products with one read and one write', async () => {
    const products = [oid(0x91, 1), oid(0x91, 2), oid(0x91, 3)];
    for (const p of products) await stock.restock(p, 'MSK', 5, 'delivery');
    expect(await counted(() => notifier.notifyOnce())).toEqual({ reads: 1, writes: 1 }); // the read, the clear
    for (const p of products)
      expect(await published(p, 1)).toEqual([{ product_id: p, zone: 'MSK', available: 5, version: 1 }]);
    expect(await notifier.notifyOnce()).toEqual({ dirty: 0, cleared: 0 });
  });

  it('an idle period costs a backed-off read and no write (at a 25 ms interval: at most 11 reads in 2 s, not 80)', async () => {
    await idlePump(25);
    const idle = await counted(() => sleep(2_000));
    expect(idle.writes).toBe(0);
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
    expect(await notifier.notifyOnce()).toEqual({ dirty: 1, cleared: 0 }); // published at version 1, which is gone: still dirty
    expect(await notifier.notifyOnce()).toEqual({ dirty: 1, cleared: 1 });
    expect(await notifier.notifyOnce()).toEqual({ dirty: 0, cleared: 0 });
    // carts keeps the newest version (USING TIMESTAMP version): the older event changes nothing there
    expect(await published(p, 2)).toEqual([
      { product_id: p, zone: 'MSK', available: 4, version: 1 },
      { product_id: p, zone: 'MSK', available: 10, version: 2 },
    ]);
  });

  it('a crash between the publish and the clear loses nothing: the next pass publishes the same level again', async () => {
    const p = oid(0x91, 6);
    await stock.restock(p, 'MSK', 7, 'delivery');
    const dying = new LevelNotifier(stock, new InventoryEvents(topic), new DiesAfterPublish(publisher));
    await expect(dying.notifyOnce()).rejects.toThrow('killed after the publish');
    expect(await notifier.notifyOnce()).toEqual({ dirty: 1, cleared: 1 });
    expect(await notifier.notifyOnce()).toEqual({ dirty: 0, cleared: 0 });
    const level = { product_id: p, zone: 'MSK', available: 7, version: 1 };
    expect(await published(p, 2)).toEqual([level, level]);
  });
});
