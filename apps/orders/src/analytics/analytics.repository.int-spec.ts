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

/**
 * Group commit (ADR 0051, issue #17): `refreshMany` applies a whole consumed batch in one
 * transaction and must leave exactly what refreshing each order in turn leaves — with orders whose
 * facts are already applied (their guard lost), the same order twice in one batch, an order that
 * does not exist, and batches that overlap running at once.
 */
describe('analytics group commit: refreshMany against refresh one by one', () => {
  let client: MongoClient;
  const one = uniqueName('orders_analytics_one');
  const many = uniqueName('orders_analytics_many');
  const docs = [...KNOWN_ORDERS.map((o) => historicOrder(o, 'orders.orders.v1').doc)];
  const ids = docs.map((d) => d._id);
  const missing = '0123456789abcdef01234567';

  const repoOf = (db: string) => new AnalyticsRepository(client, client.db(db), ReadPreference.primary);
  const snapshot = async (db: string) => {
    const out: Record<string, unknown[]> = {};
    for (const c of Object.values(ANALYTICS_COLLECTIONS)) {
      out[c] = await client
        .db(db)
        .collection(c)
        .find({}, { projection: { applied_at: 0 } })
        .sort({ _id: 1 })
        .toArray();
    }
    return out;
  };

  beforeAll(async () => {
    client = await createMongoClient(testEnv().mongoUrl, { writeConcern: { w: 'majority' } }).connect();
    for (const db of [one, many]) {
      await repoOf(db).ensureIndexes();
      await client.db(db).collection<HistoricOrderDoc>('orders').insertMany(docs);
    }
  });
  afterAll(async () => {
    for (const db of [one, many]) await client.db(db).dropDatabase();
    await client.close();
  });

  it('one transaction for the batch leaves exactly the counters and markers of one refresh per order', async () => {
    for (const id of ids) await repoOf(one).refresh(id);
    // two orders already applied before the batch: their guard (the markers) must hold in it
    await repoOf(many).refresh(ids[0]!);
    await repoOf(many).refresh(ids[3]!);
    const outcomes = await repoOf(many).refreshMany([...ids, ids[1]!, missing, ids[0]!]);
    expect(outcomes.get(ids[0]!)).toEqual({ kind: 'unchanged' });
    expect(outcomes.get(ids[3]!)).toEqual({ kind: 'unchanged' });
    expect(outcomes.get(ids[1]!)?.kind).toBe('applied');
    expect(outcomes.get(missing)).toEqual({ kind: 'missing' });
    expect(await snapshot(many)).toEqual(await snapshot(one));
  });

  it('a cancellation after confirmation in a batch reverses the sale once; overlapping batches at once count each fact once', async () => {
    const o7 = historicOrder(O7_CANCELLED, 'orders.orders.v1').doc;
    const { _id, ...rest } = o7;
    for (const db of [one, many]) await client.db(db).collection<HistoricOrderDoc>('orders').replaceOne({ _id }, rest);
    await repoOf(one).refresh(_id);
    const batches = [ids, [...ids].reverse(), [_id], [_id, ids[2]!, _id]];
    await Promise.all(batches.map((b) => repoOf(many).refreshMany(b)));
    expect(await snapshot(many)).toEqual(await snapshot(one));
  });
});
