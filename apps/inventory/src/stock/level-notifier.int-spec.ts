import type { CommandStartedEvent } from 'mongodb';
import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName } from '@mw/testing';
import { InventoryEvents } from '../outbox/inventory-events';
import { oid } from '../test/harness';
import { LevelNotifier } from './level-notifier';
import { StockRepository } from './stock.repository';
import { stockKey } from './stock';

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
 * command monitoring: a pass costs one read and one bulkWrite whatever the number of products, an
 * idle period costs a backed-off read and no write, and no level change is lost (a write in this
 * process wakes it; one in another process is found by the backed-off read; a level that moves
 * between the read and the write is published by the next pass with its newer version).
 */
describe('the stock level notifier', () => {
  const env = testEnv();
  const client = createMongoClient(env.mongoUrl, { monitorCommands: true });
  const db = client.db(uniqueName('inventory_levels'));
  const stock = new MovedAfterRead(db);
  const otherProcess = new StockRepository(db); // its writes wake nothing here
  const notifier = new LevelNotifier(stock, new InventoryEvents('test.events'));
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
      seen,
    };
  };
  const ticks = async (n: number) => {
    let published = 0;
    for (let i = 0; i < n; i++) published += await notifier.tick();
    return published;
  };
  const levelsOf = async (p: string) =>
    ((await stock.coll.findOne({ _id: stockKey(p, 'MSK') }))?._outbox ?? [])
      .map((e) => JSON.parse(e.envelope) as { type: string; payload: { available: number; version: number } })
      .filter((e) => e.type === 'StockLevelChanged')
      .map((e) => e.payload);

  beforeAll(async () => {
    await client.connect();
    await stock.ensureIndexes();
    client.on('commandStarted', record);
  });
  afterAll(async () => {
    client.off('commandStarted', record);
    await db.dropDatabase();
    await client.close();
  });

  it('publishes the levels of three changed products with one read and one write', async () => {
    const products = [oid(0x91, 1), oid(0x91, 2), oid(0x91, 3)];
    for (const p of products) await stock.restock(p, 'MSK', 5, 'delivery');
    const pass = await counted(() => ticks(1));
    expect(pass).toEqual({ reads: 1, writes: 1, seen: ['find', 'update'] });
    for (const p of products)
      expect(await levelsOf(p)).toEqual([{ product_id: p, zone: 'MSK', available: 5, version: 1 }]);
  });

  it('an idle period costs a backed-off read and no write: 7 reads in 40 ticks', async () => {
    // polls at ticks 1, 3, 7, 15, 23, 31, 39 (the gap doubles up to 8 ticks)
    expect(await counted(() => ticks(40))).toEqual({ reads: 7, writes: 0, seen: Array(7).fill('find') });
  });

  it('a stock write in this process is published at the very next tick, however long it was idle', async () => {
    const p = oid(0x91, 4);
    await otherProcess.restock(p, 'MSK', 3, 'delivery');
    await ticks(8); // found by the backed-off read (another process's write wakes nothing here)
    expect(await levelsOf(p)).toEqual([{ product_id: p, zone: 'MSK', available: 3, version: 1 }]);
    await ticks(40); // idle again: the next read is 8 ticks away
    expect(
      await stock.hold('MSK', { product_id: p, qty: 2 }, oid(0x92, 1), new Date(Date.now() + 60_000)),
    ).toEqual({ held: true });
    expect(await counted(() => ticks(1))).toMatchObject({ reads: 1, writes: 1 });
    expect((await levelsOf(p)).at(-1)).toEqual({ product_id: p, zone: 'MSK', available: 1, version: 2 });
  });

  it('a level that moves between the read and the write is published with its newer version by the next pass', async () => {
    const p = oid(0x91, 5);
    await stock.restock(p, 'MSK', 4, 'delivery');
    stock.between = () => otherProcess.restock(p, 'MSK', 6, 'second delivery');
    expect(await ticks(1)).toBe(0); // the version read (1) is gone: nothing stored, the document stays dirty
    expect(await levelsOf(p)).toEqual([]);
    expect(await ticks(1)).toBe(1); // not backed off: the last read found work
    expect(await levelsOf(p)).toEqual([{ product_id: p, zone: 'MSK', available: 10, version: 2 }]);
  });
});
