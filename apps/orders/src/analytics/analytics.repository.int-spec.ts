import { MongoClient, ReadPreference } from 'mongodb';
import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName } from '@mw/testing';
import { ANALYTICS_COLLECTIONS, AnalyticsRepository } from './analytics.repository';
import { historicOrder, HistoricOrderDoc } from './demo/historic-orders';
import { KNOWN_ORDERS, O7_CANCELLED } from './test/known-orders';

/**
 * The read model's write path on the real replica set, without Kafka: instances refreshing the
 * same order at the same moment (two consumers after a rebalance, a redelivery racing the
 * original) apply each fact once — the transaction's markers decide.
 */
describe('analytics read model writes (transactions on the replica set)', () => {
  let client: MongoClient;
  const dbName = uniqueName('orders_analytics');
  let repo: AnalyticsRepository;
  const o7 = historicOrder(KNOWN_ORDERS[6]!, 'orders.orders.v1').doc; // confirmed: a phone and a TV, MSK, 2026-10-15
  const o7Cancelled = historicOrder(O7_CANCELLED, 'orders.orders.v1').doc;

  beforeAll(async () => {
    client = await createMongoClient(testEnv().mongoUrl, { writeConcern: { w: 'majority' } }).connect();
    repo = new AnalyticsRepository(client, client.db(dbName), ReadPreference.primary);
    await repo.ensureIndexes();
    await client.db(dbName).collection<HistoricOrderDoc>('orders').insertOne(o7);
  });
  afterAll(async () => {
    await client.db(dbName).dropDatabase();
    await client.close();
  });

  const day = () =>
    client
      .db(dbName)
      .collection(ANALYTICS_COLLECTIONS.days)
      .findOne({ _id: '2026-10-15|MSK' as never }, { projection: { _id: 0 } });
  const categories = () =>
    client
      .db(dbName)
      .collection(ANALYTICS_COLLECTIONS.categories)
      .find({}, { projection: { _id: 0, category_id: 1, orders: 1, revenue: 1, units: 1 } })
      .sort({ category_id: 1 })
      .toArray();

  it('eight concurrent refreshes of a sold order: one applies placed and sold, seven find them applied', async () => {
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => repo.refresh(o7._id)));
    expect(outcomes.filter((o) => o.kind === 'applied')).toEqual([
      { kind: 'applied', facts: ['placed', 'sold'] },
    ]);
    expect(outcomes.filter((o) => o.kind === 'unchanged')).toHaveLength(7);
    expect(await day()).toEqual({
      day: '2026-10-15',
      zone: 'MSK',
      placed: 1,
      orders: 1,
      revenue: 13_000_000,
      units: 2,
    });
    expect(await categories()).toEqual([
      { category_id: 'c0000000000000000000000a', orders: 1, revenue: 5_000_000, units: 1 },
      { category_id: 'c0000000000000000000000b', orders: 1, revenue: 8_000_000, units: 1 },
    ]);
  });

  it('the customer cancels it: eight concurrent refreshes reverse the sale once', async () => {
    const { _id, ...rest } = o7Cancelled;
    await client.db(dbName).collection<HistoricOrderDoc>('orders').replaceOne({ _id }, rest);
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => repo.refresh(o7._id)));
    expect(outcomes.filter((o) => o.kind === 'applied')).toEqual([
      { kind: 'applied', facts: ['cancelled', 'sale_reversed'] },
    ]);
    expect(await day()).toEqual({
      day: '2026-10-15',
      zone: 'MSK',
      placed: 1,
      orders: 0,
      revenue: 0,
      units: 0,
      cancelled: 1,
      cancelled_by_reason: { CANCELLED_BY_USER: 1 },
      sales_reversed: 1,
    });
    expect((await categories()).map((c) => [c['orders'], c['revenue'], c['units']])).toEqual([
      [0, 0, 0],
      [0, 0, 0],
    ]);
    expect(await client.db(dbName).collection(ANALYTICS_COLLECTIONS.applied).countDocuments()).toBe(4);
  });

  it('an event for an order that does not exist counts nothing', async () => {
    expect(await repo.refresh('0123456789abcdef01234567')).toEqual({ kind: 'missing' });
    expect(
      await client
        .db(dbName)
        .collection(ANALYTICS_COLLECTIONS.applied)
        .countDocuments({ order_id: '0123456789abcdef01234567' }),
    ).toBe(0);
  });
});
