import type { CommandStartedEvent } from 'mongodb';
import pino from 'pino';
import { createMongoClient } from '@mw/persistence';
import { Periodic } from '@mw/platform';
import { testEnv, uniqueName, waitFor } from '@mw/testing';
import { InventoryEvents } from '../outbox/inventory-events';
import { oid } from '../test/harness';
import { LevelNotifier } from './level-notifier';
import { stockKey } from './stock';
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

/**
 * The StockLevelChanged notifier on the real replica set, its commands counted with the driver's
 * command monitoring: a pass costs one read and one bulkWrite whatever the number of products; run
 * as a `stockPump`, an idle period costs a backed-off read and no write, and no level change is lost
 * (a write in this process runs the backed-off pass at once; one in another process is found by the
 * backed-off read; a level that moves between the read and the write is published by the next pass
 * with its newer version).
 */
describe('the stock level notifier', () => {
  const env = testEnv();
  const client = createMongoClient(env.mongoUrl, { monitorCommands: true });
  const db = client.db(uniqueName('inventory_levels'));
  const stock = new MovedAfterRead(db);
  const otherProcess = new StockRepository(db); // its writes kick nothing here
  const notifier = new LevelNotifier(stock, new InventoryEvents('test.events'));
  const logger = pino({ level: 'silent' });
  let pump: Periodic | undefined;
  const commands: string[] = [];
  const record = (e: CommandStartedEvent) => {
    if (e.databaseName === db.databaseName) commands.push(e.commandName);
  };
  const counted = async (run: () => Promise<unknown>) => {
    commands.splice(0);
    await run();
    const seen = commands.splice(0);
    return {
      reads: seen.filter((c) => c === 'find').length,
      writes: seen.filter((c) => c !== 'find').length,
    };
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const levelsOf = async (p: string) =>
    ((await stock.coll.findOne({ _id: stockKey(p, 'MSK') }))?._outbox ?? [])
      .map((e) => JSON.parse(e.envelope) as { type: string; payload: { available: number; version: number } })
      .filter((e) => e.type === 'StockLevelChanged')
      .map((e) => e.payload);
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
    client.on('commandStarted', record);
  });
  afterEach(async () => {
    await pump?.stop();
    pump = undefined;
  });
  afterAll(async () => {
    client.off('commandStarted', record);
    await db.dropDatabase();
    await client.close();
  });

  it('publishes the levels of three changed products with one read and one write', async () => {
    const products = [oid(0x91, 1), oid(0x91, 2), oid(0x91, 3)];
    for (const p of products) await stock.restock(p, 'MSK', 5, 'delivery');
    expect(await counted(() => notifier.notifyOnce())).toEqual({ reads: 1, writes: 1 });
    for (const p of products)
      expect(await levelsOf(p)).toEqual([{ product_id: p, zone: 'MSK', available: 5, version: 1 }]);
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
    await waitFor(async () => (await levelsOf(p)).length === 1, 10_000, 'the level published');
    expect({ within: Date.now() - wroteAt < 1_000, levels: await levelsOf(p) }).toEqual({
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
      async () => (await levelsOf(p)).length === 2,
      250 * IDLE_FACTOR * 3,
      "the other process's level published",
    );
    expect((await levelsOf(p)).at(-1)).toEqual({ product_id: p, zone: 'MSK', available: 5, version: 2 });
  });

  it('a level that moves between the read and the write is published with its newer version by the next pass', async () => {
    const p = oid(0x91, 5);
    await stock.restock(p, 'MSK', 4, 'delivery');
    stock.between = () => otherProcess.restock(p, 'MSK', 6, 'second delivery');
    expect(await notifier.notifyOnce()).toEqual({ dirty: 1, published: 0 }); // the version read (1) is gone: nothing stored, still dirty
    expect(await levelsOf(p)).toEqual([]);
    expect(await notifier.notifyOnce()).toEqual({ dirty: 1, published: 1 });
    expect(await levelsOf(p)).toEqual([{ product_id: p, zone: 'MSK', available: 10, version: 2 }]);
  });
});
