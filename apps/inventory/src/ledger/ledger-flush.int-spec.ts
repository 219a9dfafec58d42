import { MongoClient } from 'mongodb';
import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName } from '@mw/testing';
import { InventoryEvents } from '../outbox/inventory-events';
import { StockDoc } from '../stock/stock';
import { StockPass } from '../stock/stock-pass';
import { STOCK, StockRepository } from '../stock/stock.repository';
import { LEDGER, LedgerRepository } from './ledger.repository';
import { LedgerEntry } from './ledger';

/**
 * The stock pass copies pending entries out of stock documents and then pulls them. The pull may
 * only follow a copy a majority acknowledged: a write concern error (a primary stepping down before
 * the inserts replicated; here a write concern the replica set cannot satisfy) must stop the pass
 * with the entries still pending in their document, never pass as "already copied". The planted
 * documents have no level to publish: a publish here is a defect.
 */
describe('the stock pass moving the ledger (real replica set)', () => {
  const dbName = uniqueName('ledger_flush');
  let client: MongoClient;

  beforeAll(async () => {
    client = createMongoClient(testEnv().mongoUrl, { writeConcern: { w: 'majority' } });
    await client.connect();
  });
  afterAll(async () => {
    await client.db(dbName).dropDatabase();
    await client.close();
  });

  const entry = (i: number, at = new Date(Date.now() - 1000)): LedgerEntry => ({
    _id: `e-${i}-${dbName}`,
    product_id: 'p1',
    zone: 'MSK',
    kind: 'restock',
    qty: 1,
    at,
  });

  async function plant(id: string, entries: LedgerEntry[]): Promise<void> {
    await client
      .db(dbName)
      .collection<StockDoc>(STOCK)
      .insertOne({ _id: id, _ledger: entries } as unknown as StockDoc);
  }
  const refuse = {
    publishAll: () => Promise.reject(new Error('no level was changed: nothing to publish')),
  };
  /** The service's stock pass over `db` (its repositories, and the ledger copy, on that db's write concern). */
  const stockPass = (db = client.db(dbName)) =>
    new StockPass(new StockRepository(db), new LedgerRepository(db), new InventoryEvents('unused.levels'), refuse);
  const pending = async (id: string): Promise<string[]> =>
    ((await client.db(dbName).collection<StockDoc>(STOCK).findOne({ _id: id }))?._ledger ?? []).map((e) => e._id);

  it('moves entries and treats entries already copied (a repeated pass) as done', async () => {
    await plant('doc-a', [entry(1), entry(2)]);
    await client.db(dbName).collection<LedgerEntry>(LEDGER).insertOne(entry(1)); // copied by a pass that crashed before its pull
    expect(await stockPass().runOnce()).toEqual({ dirty: 0, copied: 2 });
    expect(await pending('doc-a')).toEqual([]);
    expect(await client.db(dbName).collection(LEDGER).countDocuments({ _id: { $in: [entry(1)._id, entry(2)._id] } as never })).toBe(2);
  });

  it('copies only entries a majority has: an entry the primary alone holds (it could roll back) waits', async () => {
    // the secondaries stop applying (fsync lock): a w:1 write stays on the primary alone, as on a primary cut off from its members
    const hello = await client.db('admin').command({ hello: 1 });
    const secondaries = (hello['hosts'] as string[]).filter((h) => h !== hello['primary']);
    const direct = await Promise.all(secondaries.map((h) => createMongoClient(`mongodb://${h}/?directConnection=true`).connect()));
    const repo = stockPass();
    // while the secondaries are locked no majority write can finish: a flusher that copied the entry anyway
    // must fail here (wtimeout) rather than hang with the replica set locked for every other suite
    const locked = stockPass(client.db(dbName, { writeConcern: { w: 'majority', wtimeoutMS: 3000 } }));
    try {
      for (const d of direct) await d.db('admin').command({ fsync: 1, lock: true });
      let copied: { copied: number } | Error;
      try {
        await client.db(dbName).collection<StockDoc>(STOCK, { writeConcern: { w: 1 } }).insertOne({ _id: 'doc-c', _ledger: [entry(5)] } as unknown as StockDoc);
        copied = await locked.runOnce().catch((e: unknown) => e as Error);
      } finally {
        for (const d of direct) await d.db('admin').command({ fsyncUnlock: 1 });
      }
      expect(copied).toEqual({ dirty: 0, copied: 0 });
      // replicated now: the next pass copies it
      for (let i = 0; i < 50 && (await client.db(dbName).collection(LEDGER).countDocuments({ _id: entry(5)._id } as never)) === 0; i++) await repo.runOnce();
      expect(await client.db(dbName).collection(LEDGER).countDocuments({ _id: entry(5)._id } as never)).toBe(1);
      expect(await pending('doc-c')).toEqual([]);
    } finally {
      await Promise.all(direct.map((d) => d.close()));
    }
  });

  it('a write concern error on the copy stops the pass: nothing is pulled from the document', async () => {
    await plant('doc-b', [entry(3), entry(4)]);
    // Unsatisfiable on any replica set here: mongod applies the insert and answers a writeConcernError.
    const unacknowledged = stockPass(client.db(dbName, { writeConcern: { w: 50 } }));
    await expect(unacknowledged.runOnce()).rejects.toThrow(/write concern|data-bearing|UnsatisfiableWriteConcern/i);
    expect((await pending('doc-b')).sort()).toEqual([entry(3)._id, entry(4)._id].sort());
  });
});
