import { MongoClient } from 'mongodb';
import { Registry } from 'prom-client';
import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName } from '@mw/testing';
import { ORDERS_COLLECTION, OrdersRepository } from '../orders/orders.repository';
import { overdueGraceMs, SagaOverdueMetrics } from './saga.metrics';

/** orders_saga_overdue on the real replica set: orders the sweeper should have moved on, by saga state. */
describe('orders_saga_overdue (real MongoDB)', () => {
  let client: MongoClient;
  const dbName = uniqueName('orders_overdue');

  beforeAll(async () => {
    client = await createMongoClient(testEnv().mongoUrl, { writeConcern: { w: 'majority' } }).connect();
    const ago = (ms: number): Date => new Date(Date.now() - ms);
    await new OrdersRepository(client.db(dbName)).ensureIndexes();
    await client
      .db(dbName)
      .collection(ORDERS_COLLECTION)
      .insertMany([
        {
          _id: 'a',
          zone: 'MSK',
          user_id: 'u',
          checkout_id: 'a',
          saga: { state: 'AWAITING_PAYMENT', deadline: ago(5 * 60_000) },
        },
        {
          _id: 'b',
          zone: 'MSK',
          user_id: 'u',
          checkout_id: 'b',
          saga: { state: 'AWAITING_PAYMENT', deadline: ago(2 * 60_000) },
        },
        {
          _id: 'c',
          zone: 'MSK',
          user_id: 'u',
          checkout_id: 'c',
          saga: { state: 'AWAITING_STOCK', deadline: ago(90_000) },
        },
        // within the grace: the sweeper still has time
        {
          _id: 'd',
          zone: 'MSK',
          user_id: 'u',
          checkout_id: 'd',
          saga: { state: 'COMMITTING', deadline: ago(5_000) },
        },
        // a future deadline and a finished saga (no deadline)
        {
          _id: 'e',
          zone: 'MSK',
          user_id: 'u',
          checkout_id: 'e',
          saga: { state: 'AWAITING_STOCK', deadline: ago(-60_000) },
        },
        { _id: 'f', zone: 'MSK', user_id: 'u', checkout_id: 'f', saga: { state: 'CONFIRMED' } },
      ] as never[]);
  });
  afterAll(async () => {
    await client.db(dbName).dropDatabase();
    await client.close();
  });

  it('counts per state only deadlines past the grace', async () => {
    const registry = new Registry();
    new SagaOverdueMetrics(registry, new OrdersRepository(client.db(dbName)), overdueGraceMs(1000));
    const lines = (await registry.metrics())
      .split('\n')
      .filter((l) => l.startsWith('orders_saga_overdue{'))
      .sort();
    expect(lines).toEqual([
      'orders_saga_overdue{state="AWAITING_PAYMENT"} 2',
      'orders_saga_overdue{state="AWAITING_STOCK"} 1',
    ]);
  });

  it('the grace is a few sweeps, at least 30 s', () => {
    expect(overdueGraceMs(1000)).toBe(30_000);
    expect(overdueGraceMs(20_000)).toBe(360_000); // the sweeper may sleep 16 intervals while idle
  });
});
