import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName } from '@mw/testing';
import { OneCommit } from './one-commit';

/**
 * The one-commit transaction (ADR 0015 §7) on the real replica set: all of its work or nothing, and
 * a conflict with another writer answered at once with nothing written (the caller's staged path
 * then serializes on the documents) instead of the driver's retry loop.
 */
describe('OneCommit', () => {
  const client = createMongoClient(testEnv().mongoUrl);
  const db = client.db(uniqueName('inventory_one_commit'));
  const docs = db.collection<{ _id: string; n: number }>('docs');
  const oneCommit = new OneCommit(client);

  beforeAll(async () => {
    await client.connect();
    await docs.insertMany([{ _id: 'a', n: 0 }, { _id: 'b', n: 0 }]);
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('commits every write of work that answers true, and none of work that answers false', async () => {
    const both = async (session: Parameters<Parameters<OneCommit['run']>[0]>[0]) => {
      await docs.updateOne({ _id: 'a' }, { $inc: { n: 1 } }, { session });
      await docs.updateOne({ _id: 'b' }, { $inc: { n: 1 } }, { session });
    };
    expect(await oneCommit.run(async (session) => (await both(session), true))).toBe(true);
    expect(await oneCommit.run(async (session) => (await both(session), false))).toBe(false);
    expect(await docs.find().sort({ _id: 1 }).toArray()).toEqual([{ _id: 'a', n: 1 }, { _id: 'b', n: 1 }]);
  });

  it('a write conflict with an open transaction answers false at once, having written nothing; the other commits', async () => {
    let attempts = 0;
    let releaseFirst!: () => void;
    const firstMayCommit = new Promise<void>((r) => (releaseFirst = r));
    let firstWrote!: () => void;
    const firstHasWritten = new Promise<void>((r) => (firstWrote = r));
    const first = oneCommit.run(async (session) => {
      await docs.updateOne({ _id: 'a' }, { $inc: { n: 10 } }, { session });
      firstWrote();
      await firstMayCommit; // holds the write until the second has given up
      return true;
    });
    await firstHasWritten;
    const second = await oneCommit.run(async (session) => {
      attempts++;
      await docs.updateOne({ _id: 'b' }, { $inc: { n: 100 } }, { session });
      await docs.updateOne({ _id: 'a' }, { $inc: { n: 100 } }, { session }); // conflicts with the open first
      return true;
    });
    releaseFirst();
    expect(second).toBe(false);
    expect(attempts).toBe(1);
    expect(await first).toBe(true);
    expect(await docs.find().sort({ _id: 1 }).toArray()).toEqual([{ _id: 'a', n: 11 }, { _id: 'b', n: 1 }]);
  }, 30_000);
});
