import { Client } from 'cassandra-driver';
import { Db, MongoClient } from 'mongodb';
import { z } from 'zod';
import { createMongoClient } from '@mw/persistence';
import { accessToken, committedApiDocument, DemoUser, testEnv, waitFor } from '@mw/testing';
import { api } from '../api';
import { getCategory, getCategoryTree } from '../categories/categories.endpoints';
import { getProductCard, listNewInCategory } from '../listing/listing.endpoints';
import { projectorApi } from '../projector-api';
import { getProduct } from '../products/products.endpoints';
import { searchProducts } from '../search/search.endpoints';
import { CATEGORIES, PRODUCTS } from '../shared/catalog-db';
import { bearer, carol, http, Res, startStack, Stack } from './harness';

type Problem = { code: string; message: string; errors: { field: string; message: string }[] };

/** The answer is exactly what the declared response schema describes: nothing missing, nothing extra. */
function expectDocumented(schema: z.ZodType | undefined, res: Res<unknown>): void {
  expect(res.status).toBe(200);
  expect(schema?.parse(res.body)).toEqual(res.body);
}

/** Drops the stack's MongoDB database and Cassandra keyspace. */
async function dropStackData(s: Stack | undefined): Promise<void> {
  if (!s) return;
  const env = testEnv();
  const mongo = await createMongoClient(env.mongoUrl).connect();
  await mongo.db(s.config.MONGO_DB).dropDatabase();
  await mongo.close();
  const cass = new Client({
    contactPoints: env.cassandraContactPoints,
    localDataCenter: env.cassandraDatacenter,
  });
  await cass.connect();
  await cass.execute(`DROP KEYSPACE IF EXISTS ${s.config.CASSANDRA_KEYSPACE}`);
  await cass.shutdown();
}

/**
 * The catalog's API edge (ADR 0007) on the real servers with real Keycloak tokens: every read is
 * public, every write needs catalog_manager (carol), identity and unknown fields are refused,
 * undeclared methods answer 405, and what answers is what the committed document says.
 */
describe('catalog API edge', () => {
  const env = testEnv();
  let s: Stack;
  let mongo: MongoClient;
  let db: Db;
  let categoryId = '';
  let productId = '';

  const writes = (): [string, string, unknown][] => [
    ['POST', '/products', { name: 'Phone', category_id: categoryId, price: '1000.00' }],
    ['PUT', `/products/${productId}`, { name: 'Phone', category_id: categoryId, price: '1000.00' }],
    ['PATCH', `/products/${productId}`, { price: '1.00' }],
    ['DELETE', `/products/${productId}`, undefined],
    ['POST', '/categories', { name: 'Планшеты', slug: 'tablets', parent_id: null }],
    ['PATCH', '/categories/phones', { name: 'Телефоны!' }],
    ['DELETE', '/categories/phones', undefined],
    ['POST', '/categories/phones/move', { parent_id: null }],
  ];
  /**
   * Every write leaves a trace in one of these two collections (new documents, fields, versions).
   * Outbox entries are left out: the relay drains them in the background.
   */
  const snapshot = async (): Promise<string> =>
    JSON.stringify(
      await Promise.all(
        [PRODUCTS, CATEGORIES].map((c) =>
          db
            .collection(c)
            .find({}, { projection: { _outbox: 0 } })
            .sort({ _id: 1 })
            .toArray(),
        ),
      ),
    );

  beforeAll(async () => {
    s = await startStack();
    mongo = await createMongoClient(env.mongoUrl).connect();
    db = mongo.db(s.config.MONGO_DB);
    const root = await http<{ id: string }>(
      'POST',
      `${s.url}/categories`,
      { name: 'Электроника', slug: 'electronics', parent_id: null },
      carol,
    );
    const phones = await http<{ id: string }>(
      'POST',
      `${s.url}/categories`,
      { name: 'Телефоны', slug: 'phones', parent_id: root.body.id },
      carol,
    );
    categoryId = phones.body.id;
    const product = await http<{ id: string }>(
      'POST',
      `${s.url}/products`,
      {
        name: 'Смартфон X',
        category_id: categoryId,
        price: '59990.00',
        attributes: { color: 'черный' },
        pricing: { list: '69990.00', retail: '59990.00' },
      },
      carol,
    );
    expect([root.status, phones.status, product.status]).toEqual([201, 201, 201]);
    productId = product.body.id;
  });

  afterAll(async () => {
    await s?.close();
    await mongo?.close();
    await dropStackData(s);
  });

  it('every read is public: no token, and each answer matches its documented schema', async () => {
    const card = await waitFor(
      async () => {
        const r = await http('GET', `${s.url}/products/${productId}/card`);
        return r.status === 200 && r;
      },
      30_000,
      'card projected',
    );
    expectDocumented(getProductCard.response.schema, card);
    expectDocumented(getProduct.response.schema, await http('GET', `${s.url}/products/${productId}`));
    const search = await http<{ items: unknown[] }>(
      'GET',
      `${s.url}/products?category_id=${categoryId}&sort=price_asc&limit=5`,
    );
    expectDocumented(searchProducts.response.schema, search);
    expect(search.body.items).toHaveLength(1);
    expectDocumented(getCategoryTree.response.schema, await http('GET', `${s.url}/categories`));
    expectDocumented(getCategory.response.schema, await http('GET', `${s.url}/categories/phones`));
    const listing = await http<{ items: unknown[] }>(
      'GET',
      `${s.url}/categories/electronics/products?limit=5`,
    );
    expectDocumented(listNewInCategory.response.schema, listing);
    expect(listing.body.items).toHaveLength(1);
  });

  it('a write without a token is 401 AUTH.UNAUTHENTICATED with a Bearer challenge; nothing is written', async () => {
    const before = await snapshot();
    for (const [method, path, body] of writes()) {
      const r = await http<Problem>(method, `${s.url}${path}`, body);
      expect({ method, path, status: r.status, code: r.body.code }).toEqual({
        method,
        path,
        status: 401,
        code: 'AUTH.UNAUTHENTICATED',
      });
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(r.body.errors.map((e) => e.field)).toEqual(['headers.authorization']);
    }
    expect(await snapshot()).toBe(before);
  });

  it('a garbage, malformed or tampered token is 401 AUTH.*; nothing is written', async () => {
    const alice = await accessToken('alice');
    const [header, payload, signature] = alice.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const promoted = Buffer.from(
      JSON.stringify({ ...claims, realm_access: { roles: ['catalog_manager'] } }),
    ).toString('base64url');
    const cases: [string, string][] = [
      ['Bearer aaa.bbb.ccc', 'AUTH.INVALID_TOKEN'],
      ['Bearer not-a-jwt', 'AUTH.MALFORMED_AUTHORIZATION'],
      ['Basic Y2Fyb2w6ZGVtbw==', 'AUTH.MALFORMED_AUTHORIZATION'],
      [`Bearer ${header}.${promoted}.${signature}`, 'AUTH.INVALID_TOKEN'],
    ];
    const before = await snapshot();
    for (const [authorization, code] of cases) {
      for (const [method, path, body] of writes()) {
        const r = await http<Problem>(method, `${s.url}${path}`, body, { headers: { authorization } });
        expect({ authorization, method, path, status: r.status, code: r.body.code }).toEqual({
          authorization,
          method,
          path,
          status: 401,
          code,
        });
      }
    }
    expect(await snapshot()).toBe(before);
  });

  it.each<DemoUser | 'service'>(['alice', 'stan', 'sue', 'service'])(
    'a valid token without catalog_manager (%s) is 403 AUTH.FORBIDDEN on every write; nothing is written',
    async (who) => {
      const before = await snapshot();
      for (const [method, path, body] of writes()) {
        const r = await http<Problem>(method, `${s.url}${path}`, body, { as: who });
        expect({ method, path, status: r.status, code: r.body.code }).toEqual({
          method,
          path,
          status: 403,
          code: 'AUTH.FORBIDDEN',
        });
      }
      expect(await snapshot()).toBe(before);
    },
  );

  it('carol (catalog_manager) may write', async () => {
    const r = await http<{ name: string; version: number }>(
      'PATCH',
      `${s.url}/products/${productId}`,
      { name: 'Смартфон X2' },
      carol,
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'Смартфон X2', version: 2 });
  });

  it.each([
    ['PUT', '/products', 'GET, HEAD, POST'],
    ['DELETE', '/categories', 'GET, HEAD, POST'],
    ['POST', '/products/65f000000000000000000000', 'DELETE, GET, HEAD, PATCH, PUT'],
    ['PATCH', '/products/65f000000000000000000000/card', 'GET, HEAD'],
    ['PUT', '/categories/phones', 'DELETE, GET, HEAD, PATCH'],
    ['GET', '/categories/phones/move', 'POST'],
    ['DELETE', '/categories/phones/products', 'GET, HEAD'],
  ])('%s %s → 405 COMMON.METHOD_NOT_ALLOWED with Allow: %s', async (method, path, allow) => {
    const r = await http<Problem>(method, `${s.url}${path}`, undefined, carol);
    expect({ status: r.status, code: r.body.code, allow: r.headers.get('allow') }).toEqual({
      status: 405,
      code: 'COMMON.METHOD_NOT_ALLOWED',
      allow,
    });
  });

  it('an undeclared path stays 404', async () => {
    expect((await http('GET', `${s.url}/products/65f000000000000000000000/reviews`)).status).toBe(404);
  });

  it.each([
    ['user_id in the search query', 'GET', '/products?user_id=u-1', undefined, 'query', /user_id/],
    [
      'user_id in the listing query',
      'GET',
      '/categories/phones/products?user_id=u-1',
      undefined,
      'query',
      /user_id/,
    ],
    [
      'user_id in a product body',
      'POST',
      '/products',
      { name: 'x', category_id: 'CAT', price: '1.00', user_id: 'u-1' },
      'body.user_id',
      /unknown/,
    ],
    [
      'updated_by in a category body',
      'PATCH',
      '/categories/phones',
      { name: 'x', updated_by: 'carol' },
      'body.updated_by',
      /unknown/,
    ],
    [
      '$where in a move body',
      'POST',
      '/categories/phones/move',
      { parent_id: null, $where: '1' },
      'body.$where',
      /unknown/,
    ],
    ['a malformed product id', 'PATCH', '/products/nope', { price: '1.00' }, 'params.id', /ObjectId/],
    ['a malformed slug', 'DELETE', '/categories/Not_A_Slug', undefined, 'params.slug', /hyphens/],
    ['an empty patch', 'PATCH', '/products/PRODUCT', {}, 'body', /nothing to change/],
    [
      'a price with three decimals',
      'PATCH',
      '/products/PRODUCT',
      { price: '1.005' },
      'body.price',
      /2 fraction digits/,
    ],
    ['a blank name', 'PATCH', '/categories/phones', { name: '   ' }, 'body.name', /blank/],
  ])(
    '%s → 400 (422 for a rule the document cannot state) naming the field; nothing is written',
    async (name, method, path, body, field, message) => {
      const before = await snapshot();
      const payload = body && 'category_id' in body ? { ...body, category_id: categoryId } : body;
      const r = await http<Problem>(
        method,
        `${s.url}${path.replace('PRODUCT', productId)}`,
        payload,
        method === 'GET' ? {} : carol,
      );
      // an empty patch matches the document (every field optional) but changes nothing: a rule, 422
      expect(r.status).toBe(name === 'an empty patch' ? 422 : 400);
      expect(r.body.errors.map((e) => e.field)).toContain(field);
      expect(r.body.errors.find((e) => e.field === field)?.message).toMatch(message);
      expect(await snapshot()).toBe(before);
    },
  );

  it('serves exactly the committed OpenAPI documents (API and projector)', async () => {
    const served = await (await fetch(`${s.url}/docs/openapi.json`)).json();
    expect(served).toEqual(committedApiDocument(api).committed);
    const projector = await (await fetch(`${s.projectorUrl}/docs/openapi.json`)).json();
    expect(projector).toEqual(committedApiDocument(projectorApi).committed);
  });

  it.each(['api', 'projector'] as const)(
    'metrics of the %s need the operator role; health is public',
    async (which) => {
      const base = which === 'api' ? s.url : s.projectorUrl;
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      expect((await fetch(`${base}/metrics`, { headers: await bearer('carol') })).status).toBe(403);
      const ok = await fetch(`${base}/metrics`, { headers: await bearer('service') });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('http_request_duration_seconds');
      expect((await fetch(`${base}/health`)).status).toBe(200);
    },
  );
});

/**
 * Writes are rate-limited per caller (token bucket, here 2 a minute): the third write of carol
 * within the minute is 429 with Retry-After and the problem body, and writes nothing. Reads are
 * never limited; a write without a token is still 401 (authentication comes first).
 */
describe('catalog write rate limit', () => {
  const env = testEnv();
  let s: Stack;
  let mongo: MongoClient;

  beforeAll(async () => {
    s = await startStack({}, { rateLimitWritesPerMinute: 2 });
    mongo = await createMongoClient(env.mongoUrl).connect();
  });

  afterAll(async () => {
    await s?.close();
    await mongo?.close();
    await dropStackData(s);
  });

  it('the third write of carol within a minute is 429 COMMON.RATE_LIMITED with Retry-After; reads go on', async () => {
    const category = await http<{ id: string }>(
      'POST',
      `${s.url}/categories`,
      { name: 'Телефоны', slug: 'phones', parent_id: null },
      carol,
    );
    expect(category.status).toBe(201);
    const product = await http<{ id: string }>(
      'POST',
      `${s.url}/products`,
      { name: 'Смартфон', category_id: category.body.id, price: '100.00' },
      carol,
    );
    expect(product.status).toBe(201);

    const products = mongo.db(s.config.MONGO_DB).collection(PRODUCTS);
    const before = await products.find().toArray();
    const third = await http<Problem>(
      'PATCH',
      `${s.url}/products/${product.body.id}`,
      { price: '1.00' },
      carol,
    );
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ code: 'COMMON.RATE_LIMITED', errors: [] });
    expect(third.body.message).toEqual(expect.any(String));
    const retryAfter = third.headers.get('retry-after') ?? '';
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(await products.find().toArray()).toEqual(before);
    // Every write method draws from the same bucket.
    expect((await http('DELETE', `${s.url}/categories/phones`, undefined, carol)).status).toBe(429);

    // Reads are never limited, with or without a token.
    for (let i = 0; i < 5; i++) {
      expect((await http('GET', `${s.url}/products/${product.body.id}`, undefined, carol)).status).toBe(200);
      expect((await http('GET', `${s.url}/categories/phones`)).status).toBe(200);
    }
    // Authentication and roles come before the limit: no token is 401, another user without the role 403.
    const anonymous = await http<Problem>('POST', `${s.url}/categories`, {
      name: 'x',
      slug: 'x',
      parent_id: null,
    });
    expect({ status: anonymous.status, code: anonymous.body.code }).toEqual({
      status: 401,
      code: 'AUTH.UNAUTHENTICATED',
    });
    const alice = await http<Problem>(
      'POST',
      `${s.url}/categories`,
      { name: 'x', slug: 'x', parent_id: null },
      { as: 'alice' },
    );
    expect({ status: alice.status, code: alice.body.code }).toEqual({ status: 403, code: 'AUTH.FORBIDDEN' });
  });
});
