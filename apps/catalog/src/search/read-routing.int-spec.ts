import { Db, MongoClient } from 'mongodb';
import { createMongoClient, unknownCollections, unroutedQueries } from '@mw/persistence';
import { MemberProfiler, profileMembers, testEnv, waitFor } from '@mw/testing';
import { PRODUCTS } from '../shared/catalog-db';
import { carol, http, startStack, Stack } from '../e2e/harness';

/**
 * Seed 001 §5 on the real replica set: catalog search reads from a secondary, product writes
 * (decisions) go to the primary. The members' own profilers say who served what.
 */
describe('catalog read routing on the replica set', () => {
  const env = testEnv();
  let s: Stack;
  let mongo: MongoClient;
  let db: Db;
  let profiler: MemberProfiler;

  beforeAll(async () => {
    s = await startStack({ CATALOG_READ_PREFERENCE: 'secondaryPreferred' });
    mongo = await createMongoClient(env.mongoUrl).connect();
    db = mongo.db(s.config.MONGO_DB);
    profiler = await profileMembers(env.mongoUrl, s.config.MONGO_DB);
  });

  afterAll(async () => {
    await profiler?.stop();
    await s?.close();
    await db?.dropDatabase();
    await mongo?.close();
  });

  it('serves searches from secondaries and never from the primary', async () => {
    const category = await http<{ id: string }>(
      'POST',
      `${s.url}/categories`,
      { name: 'Смартфоны', slug: `phones-${Date.now()}`, parent_id: null },
      carol,
    );
    expect(category.status).toBe(201);
    for (let i = 0; i < 5; i++) {
      const r = await http(
        'POST',
        `${s.url}/products`,
        { name: `Phone ${i}`, category_id: category.body.id, price: `${1000 + i}.00`, attributes: {} },
        carol,
      );
      expect(r.status).toBe(201);
    }
    // the search shape (the outbox relay also reads products, from the primary, as it must)
    const search = { op: 'query', 'command.sort.price': 1 };
    const before = await profiler.count(PRODUCTS, search);
    const searches = 12;
    for (let i = 0; i < searches; i++) {
      // a majority-acknowledged write may still be on its way to the third member: wait for it
      await waitFor(
        async () => {
          const page = await http<{ items: unknown[] }>(
            'GET',
            `${s.url}/products?category_id=${category.body.id}&sort=price_asc&limit=10`,
          );
          return page.status === 200 && page.body.items.length === 5;
        },
        10_000,
        'search sees the five products',
      );
    }
    const after = await profiler.count(PRODUCTS, search);
    expect(after.secondaries - before.secondaries).toBeGreaterThanOrEqual(searches);
    expect(after.primary - before.primary).toBe(0);
    // the writes went to the primary
    expect(
      (await profiler.count(PRODUCTS, { op: { $in: ['insert', 'update'] } })).primary,
    ).toBeGreaterThanOrEqual(5);
    // ADR 0010: on the sharded overlay every query carries its collection's shard key or is a documented scatter
    const ops = await profiler.operations();
    expect(ops.length).toBeGreaterThan(0);
    expect(unknownCollections('catalog', ops)).toEqual([]);
    expect(unroutedQueries('catalog', ops)).toEqual([]);
  });
});
