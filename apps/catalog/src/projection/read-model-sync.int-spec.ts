import { Client, types } from 'cassandra-driver';
import { MongoClient } from 'mongodb';
import pino from 'pino';
import { connectCassandra, createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName } from '@mw/testing';
import { diffAll, rebuild } from '../../scripts/read-model-sync';
import { CategoriesRepository } from '../categories/categories.repository';
import { CategoriesService } from '../categories/categories.service';
import { ProductsReparenter } from '../products/products-reparenter';
import { ProductsRepository } from '../products/products.repository';
import { ProductsService } from '../products/products.service';
import { ensureCatalogSchema } from '../shared/catalog-db';
import { readModelSchema } from './cassandra-schema';

/** The rebuild and verify commands on real MongoDB and Cassandra (no Kafka: rebuild needs none). */
describe('read-model rebuild and anti-entropy verify', () => {
  const env = testEnv();
  const name = uniqueName('catalog_sync').toLowerCase();
  let mongo: MongoClient;
  let cass: Client;
  let products: ProductsService;
  const ids: string[] = [];
  let oldCategory = '';

  beforeAll(async () => {
    mongo = await createMongoClient(env.mongoUrl).connect();
    const db = mongo.db(name);
    await ensureCatalogSchema(db);
    cass = await connectCassandra({
      contactPoints: env.cassandraContactPoints,
      localDataCenter: env.cassandraDatacenter,
      keyspace: name,
      replication: { class: 'SimpleStrategy', replication_factor: 1 },
      schema: readModelSchema,
    });
    const catsRepo = new CategoriesRepository(db);
    const prodRepo = new ProductsRepository(db);
    const cats = new CategoriesService(catsRepo, new ProductsReparenter(prodRepo), pino({ level: 'silent' }));
    products = new ProductsService(prodRepo, catsRepo);
    const tv = await cats.create({ name: 'Телевизоры', slug: 'tv', parent_id: null });
    const oled = await cats.create({ name: 'OLED', slug: 'oled', parent_id: tv.id });
    const led = await cats.create({ name: 'LED', slug: 'led', parent_id: tv.id });
    oldCategory = oled.id;
    for (let i = 0; i < 20; i++)
      ids.push(
        (await products.create({ name: `TV ${i}`, category_id: oled.id, price: 100_000 + i, attributes: {} }))
          .product.id,
      );
    await rebuild(db, cass, 8);
    // Changes the projector never saw: a move, a price change and a delete.
    await products.change(ids[0]!, { category_id: led.id });
    await products.change(ids[1]!, { price: 1 });
    await products.delete(ids[2]!);
  });

  afterAll(async () => {
    await mongo.db(name).dropDatabase();
    await mongo.close();
    await cass.execute(`DROP KEYSPACE IF EXISTS ${name}`);
    await cass.shutdown();
  });

  it('verify reports what the read side missed; rebuild repairs it; verify is then clean', async () => {
    const db = mongo.db(name);
    // Plus a row nobody wrote through the projector.
    await cass.execute(
      'INSERT INTO products_by_category (category_id, bucket, created_at, product_id, name, version) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?',
      [
        oldCategory,
        0,
        new Date(0),
        'ffffffffffffffffffffffff',
        'ghost',
        types.Long.fromNumber(1),
        types.Long.fromNumber(1),
      ],
      { prepare: true },
    );
    // And a period the index lost: its rows would never be read.
    const [lostPeriod] = (await cass.execute('SELECT category_id, period FROM category_periods LIMIT 1'))
      .rows;
    await cass.execute(
      'DELETE FROM category_periods WHERE category_id = ? AND period = ?',
      [lostPeriod!['category_id'], lostPeriod!['period']],
      { prepare: true },
    );
    const before = await diffAll(db, cass, 8);
    const kinds = before.mismatches.map((m) => `${m.kind}:${m.product_id}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        `stale-product:${ids[0]}`,
        `stale-product:${ids[1]}`,
        `extra-product:${ids[2]}`,
        `missing-row:${ids[0]}`,
        `extra-row:${ids[0]}`,
        'extra-row:ffffffffffffffffffffffff',
      ]),
    );
    expect(before.mismatches).toContainEqual(
      expect.objectContaining({
        kind: 'missing-period',
        category_id: lostPeriod!['category_id'],
        period: lostPeriod!['period'],
      }),
    );
    const repaired = await rebuild(db, cass, 8);
    // The deleted product is removed by its replayed tombstone plan; the moved product's old row and the ghost by the diff.
    expect(repaired.removed).toBe(2);
    expect((await diffAll(db, cass, 8)).mismatches).toEqual([]);
  });
});
