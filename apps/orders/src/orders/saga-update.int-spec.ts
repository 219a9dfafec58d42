import { MongoClient } from 'mongodb';
import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName } from '@mw/testing';
import { decide, Saga, SagaInput, SagaTimeouts } from '../saga/saga';
import { newTestOrder } from '../test/new-order';
import { ORDERS_COLLECTION, OrdersRepository } from './orders.repository';

const timeouts: SagaTimeouts = { stockMs: 60_000, paymentMs: 60_000, commitMs: 60_000, cancelMs: 60_000 };

/**
 * A transition writes only what changed of the saga (issue 31): on the real replica set, the order
 * read back after each step is the planned saga exactly, and each step's oplog entry — what every
 * member receives and applies — carries its own history record, never the records before it.
 */
describe('order transitions write the saga as a diff (real MongoDB)', () => {
  const env = testEnv();
  let mongo: MongoClient;
  let repo: OrdersRepository;
  const dbName = uniqueName('orders_diff');

  beforeAll(async () => {
    mongo = await createMongoClient(env.mongoUrl).connect();
    repo = new OrdersRepository(mongo.db(dbName));
    await repo.ensureIndexes();
  });
  afterAll(async () => {
    await mongo.db(dbName).dropDatabase();
    await mongo.close();
  });

  it('stores each planned saga exactly and sends only the new history record to the oplog, single and grouped', async () => {
    const order0 = newTestOrder(timeouts);
    const id = order0.id;
    expect(await repo.insertWithMessages(order0, [])).toBe(true);
    const inputs: SagaInput[] = [
      { type: 'StockReserved', id: `sr-${id}`, expires_at: new Date(Date.now() + 900_000) },
      { type: 'PaymentCaptured', id: `ps-${id}`, authorization_id: `auth-${id}` },
      { type: 'CancelRequested', id: `cancel:${id}`, by: { role: 'customer', sub: order0.user_id } },
      { type: 'PaymentReversed', id: `pr-${id}`, how: 'refunded' },
    ];
    const causes: string[] = [];
    for (const [i, input] of inputs.entries()) {
      const order = (await repo.findById(id))!;
      const d = decide(order.saga, input, new Date(), timeouts);
      if (d.kind !== 'apply') throw new Error(`${input.type}: ${d.kind}`);
      const written = i % 2 === 0 ? await repo.transition(order, d.saga, [], new Date()) : (await repo.transitionMany([{ order, saga: d.saga, messages: [] }], new Date()))[0];
      expect(written).toBe(true);
      const stored = (await repo.findById(id))!;
      expect(stored.saga).toEqual(d.saga satisfies Saga);
      expect(stored.version).toBe(order.version + 1);
      causes.push(input.id);
    }
    const entries = await mongo
      .db('local')
      .collection('oplog.rs')
      .find({ ns: `${dbName}.${ORDERS_COLLECTION}`, op: 'u', 'o2._id': id })
      .sort({ $natural: 1 })
      .toArray();
    expect(entries).toHaveLength(inputs.length);
    for (const [i, e] of entries.entries()) {
      const text = JSON.stringify(e['o']);
      expect(text).toContain(causes[i]);
      for (const earlier of causes.slice(0, i)) expect(text).not.toContain(earlier);
    }
  });
});
