import { Client } from 'cassandra-driver';
import { EnvelopeOf } from '@mw/contracts';
import { connectCassandra, createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName, waitFor } from '@mw/testing';
import { readModelSchema } from '../projection/cassandra-schema';
import { ProjectorService } from '../projection/projector.service';
import { ReadModelRepository } from '../projection/read-model.repository';
import { bearer, carol, http, startStack, Stack } from './harness';

type Listing = { items: { id: string; price: string; category_id: string }[]; next_cursor: string | null };
type Cat = { id: string; slug: string; ancestors: { id: string }[] };

/**
 * The centrepiece: HTTP write → MongoDB + outbox → Kafka → projector (own consumer group) →
 * Cassandra → HTTP read, on the real servers. Then replays of the same events, duplicated and
 * shuffled, converge to the same rows.
 */
describe('catalog end to end (MongoDB → outbox → Kafka → projector → Cassandra)', () => {
  const env = testEnv();
  let s: Stack;
  let cass: Client;
  const cats: Record<string, Cat> = {};
  let productId = '';

  const listing = async (slug: string): Promise<Listing> =>
    (await http<Listing>('GET', `${s.url}/categories/${slug}/products?limit=100`)).body;
  const listed = async (slug: string, id: string) => (await listing(slug)).items.find((i) => i.id === id);
  const mkCat = async (name: string, slug: string, parent?: string): Promise<Cat> => {
    const r = await http<Cat>(
      'POST',
      `${s.url}/categories`,
      {
        name,
        slug,
        parent_id: parent ? cats[parent]!.id : null,
      },
      carol,
    );
    expect(r.status).toBe(201);
    return (cats[slug] = r.body);
  };

  beforeAll(async () => {
    s = await startStack();
    cass = await connectCassandra({
      contactPoints: env.cassandraContactPoints,
      localDataCenter: env.cassandraDatacenter,
      keyspace: s.config.CASSANDRA_KEYSPACE,
      replication: { class: 'SimpleStrategy', replication_factor: 1 },
      schema: [],
    });
    await mkCat('Электроника', 'electronics');
    await mkCat('Телефоны', 'phones', 'electronics');
    await mkCat('Android', 'android', 'phones');
    await mkCat('iOS', 'ios', 'phones');
    await mkCat('Гаджеты', 'gadgets');
  });

  afterAll(async () => {
    await s?.close();
    const mongo = await createMongoClient(env.mongoUrl).connect();
    await mongo.db(s.config.MONGO_DB).dropDatabase();
    await mongo.close();
    await cass?.execute(`DROP KEYSPACE IF EXISTS ${s.config.CASSANDRA_KEYSPACE}`);
    await cass?.shutdown();
  });

  it('a product created over HTTP appears in the Cassandra listing of its category and every ancestor, and as a card', async () => {
    const r = await http<{ id: string; price: string; version: number }>(
      'POST',
      `${s.url}/products`,
      {
        name: 'Samsung Galaxy S24 128 ГБ',
        category_id: cats['android']!.id,
        price: '79999.90',
        attributes: { color: 'черный', ram_gb: '8' },
        pricing: { list: '89999.90', retail: '79999.90' },
      },
      carol,
    );
    expect(r.status).toBe(201);
    expect(r.body.price).toBe('79999.90');
    productId = r.body.id;
    await waitFor(() => listed('android', productId), 30_000, 'product in android listing');
    expect(await listed('phones', productId)).toMatchObject({ category_id: cats['android']!.id });
    expect(await listed('electronics', productId)).toMatchObject({
      price: '79999.90',
      category_id: cats['android']!.id,
    });
    expect(await listed('ios', productId)).toBeUndefined();
    const card = await http<Record<string, unknown>>('GET', `${s.url}/products/${productId}/card`);
    expect(card.body).toMatchObject({
      id: productId,
      price: '79999.90',
      pricing: { list: '89999.90', retail: '79999.90', pct_savings: 11 },
      version: 1,
    });
    const metrics = await (
      await fetch(`${s.projectorUrl}/metrics`, { headers: await bearer('service') })
    ).text();
    expect(metrics).toMatch(/catalog_projection_lag_seconds_count\{type="ProductCreated"\} [1-9]/);
  });

  it('a price change reaches the listing and the card', async () => {
    expect((await http('PATCH', `${s.url}/products/${productId}`, { price: '74999.00' }, carol)).status).toBe(
      200,
    );
    await waitFor(
      async () => (await listed('electronics', productId))?.price === '74999.00',
      30_000,
      'new price in listing',
    );
    expect((await http('GET', `${s.url}/products/${productId}/card`)).body).toMatchObject({
      price: '74999.00',
      version: 2,
    });
  });

  it('moving the product to another category removes the old row and adds the new one', async () => {
    expect(
      (await http('PATCH', `${s.url}/products/${productId}`, { category_id: cats['ios']!.id }, carol)).status,
    ).toBe(200);
    await waitFor(
      async () =>
        (await listed('ios', productId)) !== undefined && (await listed('android', productId)) === undefined,
      30_000,
      'moved in the read side',
    );
    // the shared ancestors keep the product, now filed under its new category (not a stale row of the old one)
    expect(await listed('ios', productId)).toMatchObject({ category_id: cats['ios']!.id });
    expect(await listed('phones', productId)).toMatchObject({ category_id: cats['ios']!.id });
    expect(await listed('electronics', productId)).toMatchObject({ category_id: cats['ios']!.id });
  });

  it('moving a category subtree re-ancestors its products: the read side follows', async () => {
    const moved = await http<Cat>(
      'POST',
      `${s.url}/categories/phones/move`,
      {
        parent_id: cats['gadgets']!.id,
      },
      carol,
    );
    expect(moved.status).toBe(200);
    await waitFor(
      async () =>
        (await listed('gadgets', productId)) !== undefined &&
        (await listed('electronics', productId)) === undefined,
      30_000,
      'subtree move projected',
    );
    const ios = await http<{ breadcrumbs: { slug: string }[] }>('GET', `${s.url}/categories/ios`);
    expect(ios.body.breadcrumbs.map((b) => b.slug)).toEqual(['gadgets', 'phones', 'ios']);
    const product = await http<{ ancestors: string[] }>('GET', `${s.url}/products/${productId}`);
    expect(product.body.ancestors).toEqual([cats['gadgets']!.id, cats['phones']!.id, cats['ios']!.id]);
    // Moving a category under its own descendant is refused.
    expect(
      (
        await http<{ code: string }>(
          'POST',
          `${s.url}/categories/phones/move`,
          {
            parent_id: cats['ios']!.id,
          },
          carol,
        )
      ).body.code,
    ).toBe('CATALOG.MOVE_INTO_OWN_SUBTREE');
  });

  let beforeDelete: Rows;

  it('a delete removes every row; the card is gone', async () => {
    beforeDelete = await rowsOf(cass, productId);
    expect(beforeDelete.byCategory).toHaveLength(3);
    expect((await http('DELETE', `${s.url}/products/${productId}`, undefined, carol)).status).toBe(204);
    await waitFor(
      async () => (await http('GET', `${s.url}/products/${productId}/card`)).status === 404,
      30_000,
      'card deleted',
    );
    expect(await rowsOf(cass, productId)).toEqual({ byId: [], byCategory: [] });
    expect(await listed('gadgets', productId)).toBeUndefined();
  });

  it('replaying the same events twice and shuffled converges to the same rows', async () => {
    const events = s.applied.filter((e) => e.payload.product_id === productId);
    expect(events.map((e) => e.type)).toEqual([
      'ProductCreated',
      'ProductPriceChanged',
      'ProductCategoryChanged',
      'ProductCategoryChanged',
      'ProductDeleted',
    ]);
    const beforeDeleteEvents = events.slice(0, -1);
    const inOrder = await replay(beforeDeleteEvents);
    expect(inOrder).toEqual(beforeDelete);
    for (const seed of [1, 2, 3]) {
      expect(await replay(shuffle([...beforeDeleteEvents, ...beforeDeleteEvents], seed))).toEqual(
        beforeDelete,
      );
      expect(await replay(shuffle([...events, ...events], seed))).toEqual({ byId: [], byCategory: [] });
    }
  });

  it('one batch holding every event twice, shuffled, converges to the same rows as applying them in order', async () => {
    // What the projector's eachBatch hands applyAll: duplicates and versions out of order in one call.
    const events = s.applied.filter((e) => e.payload.product_id === productId);
    const beforeDeleteEvents = events.slice(0, -1);
    for (const seed of [1, 2, 3]) {
      expect(await replay(shuffle([...beforeDeleteEvents, ...beforeDeleteEvents], seed), 'batch')).toEqual(
        beforeDelete,
      );
      expect(await replay(shuffle([...events, ...events], seed), 'batch')).toEqual({
        byId: [],
        byCategory: [],
      });
    }
    // a batch after one event was applied alone: decided against the stored version
    expect(await replay(shuffle([...beforeDeleteEvents], 4), 'first-alone-then-batch')).toEqual(beforeDelete);
  });

  /**
   * Applies events to a fresh keyspace through the projector's own code and returns the rows:
   * one at a time, as one batch (applyAll), or the first alone and the rest as one batch.
   */
  async function replay(
    events: EnvelopeOf<'catalog.products.v1'>[],
    how: 'one-by-one' | 'batch' | 'first-alone-then-batch' = 'one-by-one',
  ): Promise<Rows> {
    const keyspace = uniqueName('replay').toLowerCase();
    const client = await connectCassandra({
      contactPoints: env.cassandraContactPoints,
      localDataCenter: env.cassandraDatacenter,
      keyspace,
      replication: { class: 'SimpleStrategy', replication_factor: 1 },
      schema: readModelSchema,
    });
    try {
      const projector = new ProjectorService(
        new ReadModelRepository(client),
        s.config.CATALOG_LISTING_PERIOD_DAYS,
      );
      if (how === 'one-by-one') for (const e of events) await projector.apply(e);
      else if (how === 'batch') await projector.applyAll(events);
      else {
        await projector.apply(events[0]!);
        await projector.applyAll(events.slice(1));
      }
      return await rowsOf(client, productId);
    } finally {
      await client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
      await client.shutdown();
    }
  }
});

interface Rows {
  byId: Record<string, unknown>[];
  byCategory: Record<string, unknown>[];
}

async function rowsOf(client: Client, productId: string): Promise<Rows> {
  const byId = (
    await client.execute('SELECT * FROM products_by_id WHERE product_id = ?', [productId], { prepare: true })
  ).rows;
  const all = (
    await client.execute('SELECT * FROM products_by_category', [], { prepare: true, fetchSize: 5000 })
  ).rows;
  const norm = (r: Record<string, unknown>) => JSON.parse(JSON.stringify(r)) as Record<string, unknown>;
  return {
    byId: byId.map(norm),
    byCategory: all
      .filter((r) => r['product_id'] === productId)
      .map(norm)
      .sort((a, b) => String(a['category_id']).localeCompare(String(b['category_id']))),
  };
}

function shuffle<T>(items: T[], seed: number): T[] {
  let x = seed * 2654435761;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
