import { Db, MongoClient, ObjectId } from 'mongodb';
import { createMongoClient } from '@mw/persistence';
import { testEnv } from '@mw/testing';
import { PRODUCTS } from '../shared/catalog-db';
import { buildSearch, SearchParams, SORTS } from '../search/search-query';
import { SearchRepository } from '../search/search.repository';
import { bearer, carol, http, startStack, Stack } from './harness';

type Problem = { code: string; errors: { field: string; message: string }[] };
type Page = { items: { id: string; price: string }[]; next_cursor: string | null };

/** The write API on the real MongoDB server: tree operations, validation, search and its indexes. */
describe('catalog API on real MongoDB', () => {
  const env = testEnv();
  let s: Stack;
  let mongo: MongoClient;
  let db: Db;
  const ids: Record<string, string> = {};

  const cat = async (name: string, slug: string, parent?: string) => {
    const r = await http<{ id: string }>(
      'POST',
      `${s.url}/categories`,
      {
        name,
        slug,
        parent_id: parent ? ids[parent] : null,
      },
      carol,
    );
    expect(r.status).toBe(201);
    ids[slug] = r.body.id;
  };
  const product = async (
    name: string,
    category: string,
    price: string,
    attributes: Record<string, string> = {},
    pricing?: object,
  ) => {
    const r = await http<{ id: string }>(
      'POST',
      `${s.url}/products`,
      {
        name,
        category_id: ids[category],
        price,
        attributes,
        ...(pricing ? { pricing } : {}),
      },
      carol,
    );
    expect(r.status).toBe(201);
    return r.body.id;
  };

  beforeAll(async () => {
    s = await startStack();
    mongo = await createMongoClient(env.mongoUrl).connect();
    db = mongo.db(s.config.MONGO_DB);
    await cat('Электроника', 'electronics');
    await cat('Телефоны', 'phones', 'electronics');
    await cat('Смартфоны', 'smartphones', 'phones');
    await cat('Android', 'android', 'smartphones');
    await cat('Ноутбуки', 'laptops', 'electronics');
    for (let i = 0; i < 30; i++)
      await product(`Phone ${i}`, 'android', `${10000 + (i % 10) * 1000}.00`, {
        color: i % 2 ? 'black' : 'white',
      });
    await product(
      'Laptop',
      'laptops',
      '99999.99',
      { color: 'black' },
      { list: '120000.00', retail: '99999.99' },
    );
  });

  afterAll(async () => {
    await s?.close();
    await db?.dropDatabase();
    await mongo?.close();
  });

  it('category tree: breadcrumbs, the whole tree, duplicate slug 409, rename propagates with the positional operator', async () => {
    const android = await http<{ breadcrumbs: { name: string }[] }>('GET', `${s.url}/categories/android`);
    expect(android.body.breadcrumbs.map((b) => b.name)).toEqual([
      'Электроника',
      'Телефоны',
      'Смартфоны',
      'Android',
    ]);
    const tree = await http<{ name: string; children: { name: string }[] }[]>('GET', `${s.url}/categories`);
    expect(tree.body[0]!.children.map((c) => c.name)).toEqual(['Ноутбуки', 'Телефоны']);
    expect(
      (
        await http<Problem>(
          'POST',
          `${s.url}/categories`,
          { name: 'X', slug: 'phones', parent_id: null },
          carol,
        )
      ).body.code,
    ).toBe('CATALOG.DUPLICATE_SLUG');
    expect(
      (await http('PATCH', `${s.url}/categories/phones`, { name: 'Мобильные телефоны' }, carol)).status,
    ).toBe(200);
    const after = await http<{ breadcrumbs: { name: string }[] }>('GET', `${s.url}/categories/android`);
    expect(after.body.breadcrumbs.map((b) => b.name)).toEqual([
      'Электроника',
      'Мобильные телефоны',
      'Смартфоны',
      'Android',
    ]);
  });

  it('delete only when empty; unknown slug 404', async () => {
    expect((await http<Problem>('DELETE', `${s.url}/categories/laptops`, undefined, carol)).body.code).toBe(
      'CATALOG.CATEGORY_NOT_EMPTY',
    );
    expect((await http<Problem>('DELETE', `${s.url}/categories/phones`, undefined, carol)).body.code).toBe(
      'CATALOG.CATEGORY_NOT_EMPTY',
    );
    await cat('Пустая', 'empty', 'electronics');
    expect((await http('DELETE', `${s.url}/categories/empty`, undefined, carol)).status).toBe(204);
    expect((await http('GET', `${s.url}/categories/empty`)).status).toBe(404);
    await cat('Пустая снова', 'empty'); // the slug is free again
  });

  /** Inputs that match the document but break a rule it cannot state: 422 (ADR 0007), the rest 400. */
  const RULE_VIOLATIONS = new Set([
    'unknown category',
    'oversized attributes',
    'bad cursor',
    'min above max',
  ]);

  it.each([
    ['malformed id', 'GET', '/products/123', undefined, 'params.id'],
    [
      'unknown category',
      'POST',
      '/products',
      { name: 'x', category_id: '65f000000000000000000000', price: '1.00' },
      'body.category_id',
    ],
    ['negative price', 'POST', '/products', { name: 'x', category_id: 'CAT', price: '-1.00' }, 'body.price'],
    ['NaN price', 'POST', '/products', { name: 'x', category_id: 'CAT', price: 'NaN' }, 'body.price'],
    [
      'huge price',
      'POST',
      '/products',
      { name: 'x', category_id: 'CAT', price: '1000000000000.00' },
      'body.price',
    ],
    ['float price', 'POST', '/products', { name: 'x', category_id: 'CAT', price: 12.5 }, 'body.price'],
    [
      '$where in body',
      'POST',
      '/products',
      { name: 'x', category_id: 'CAT', price: '1.00', $where: 'sleep(1000)' },
      'body.$where',
    ],
    [
      'operator as a value',
      'POST',
      '/products',
      { name: { $gt: '' }, category_id: 'CAT', price: '1.00' },
      'body.name',
    ],
    [
      'operator attribute key',
      'POST',
      '/products',
      { name: 'x', category_id: 'CAT', price: '1.00', attributes: { $set: 'x' } },
      'body.attributes.$set',
    ],
    [
      'oversized attributes',
      'POST',
      '/products',
      {
        name: 'x',
        category_id: 'CAT',
        price: '1.00',
        attributes: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`a${i}`, 'v'])),
      },
      'body.attributes',
    ],
    ['price[$gt] in query', 'GET', '/products?price[$gt]=0', undefined, 'query'],
    ['min_price[$ne] in query', 'GET', '/products?min_price[$ne]=1', undefined, 'query'],
    ['limit too big', 'GET', '/products?limit=1000', undefined, 'query.limit'],
    ['bad cursor', 'GET', '/products?cursor=abc', undefined, 'query.cursor'],
    ['min above max', 'GET', '/products?min_price=10.00&max_price=5.00', undefined, 'query.min_price'],
    ['bad attribute filter', 'GET', '/products?attributes=$where:1', undefined, 'query.attributes'],
  ])(
    '%s → 400 (422 for a rule the document cannot state) naming the field, nothing written',
    async (name, method, path, body, field) => {
      const before = await db.collection(PRODUCTS).countDocuments();
      const payload =
        body && typeof body === 'object' && 'category_id' in body && body.category_id === 'CAT'
          ? { ...body, category_id: ids['android'] }
          : body;
      const r = await http<Problem>(method, `${s.url}${path}`, payload, method === 'GET' ? {} : carol);
      expect(r.status).toBe(RULE_VIOLATIONS.has(name) ? 422 : 400);
      expect(r.body.errors.map((e) => e.field)).toContain(field);
      expect(await db.collection(PRODUCTS).countDocuments()).toBe(before);
    },
  );

  it('search: category with sub-categories, price range, attributes; cursor pages are complete and stable under inserts', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q = `category_id=${ids['electronics']}&attributes=color:black&sort=price_asc&limit=4${cursor ? `&cursor=${cursor}` : ''}`;
      const page: Page = (await http<Page>('GET', `${s.url}/products?${q}`)).body;
      seen.push(...page.items.map((i) => i.id));
      if (pages === 0) await product('Inserted cheap', 'android', '1.00', { color: 'black' }); // before the cursor: not seen, nothing shifts
      cursor = page.next_cursor;
      pages++;
    } while (cursor && pages < 20);
    expect(seen).toHaveLength(16); // 15 black phones + the laptop
    expect(new Set(seen).size).toBe(16);
    const direct = await http<Page>(
      'GET',
      `${s.url}/products?category_id=${ids['electronics']}&include_subcategories=false`,
    );
    expect(direct.body.items).toHaveLength(0);
    const range = await http<Page>(
      'GET',
      `${s.url}/products?category_id=${ids['android']}&min_price=12000.00&max_price=13000.00&sort=price_desc&limit=100`,
    );
    expect(range.body.items.map((i) => i.price)).toEqual([
      ...Array(3).fill('13000.00'),
      ...Array(3).fill('12000.00'),
    ]);
    const discount = await http<Page>('GET', `${s.url}/products?sort=discount&limit=1`);
    expect(discount.body.items[0]!.price).toBe('99999.99');
  });

  it('a listing or a search by category counts its root category on /metrics (seed 002 hot-category watch)', async () => {
    const counted = async (): Promise<number> => {
      const text = await (await fetch(`${s.url}/metrics`, { headers: await bearer('service') })).text();
      return Number(/^catalog_category_requests_total\{category="electronics"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const before = await counted();
    await http('GET', `${s.url}/products?category_id=${ids['android']}&limit=1`);
    await http('GET', `${s.url}/products?category_id=${ids['electronics']}&limit=1`);
    await http('GET', `${s.url}/products?limit=1`);
    expect((await http('GET', `${s.url}/categories/smartphones/products?limit=1`)).status).toBe(200);
    expect(await counted()).toBe(before + 3);
  });

  it('every search query shape: the planner picks its index, no blocking SORT, docs examined close to returned (explain on mongod)', async () => {
    const repo = new SearchRepository(db, {
      CATALOG_READ_PREFERENCE: 'primary',
      CATALOG_MAX_STALENESS_SECONDS: 90,
    });
    for (const sort of SORTS) {
      for (const scope of ['none', 'category', 'subtree'] as const) {
        for (const paged of [false, true]) {
          const p: SearchParams = {
            ...(scope === 'none' ? {} : { category_id: ids['android']! }),
            include_subcategories: scope === 'subtree',
            min_price: 100,
            max_price: 10_000_000,
            attributes: {},
            sort,
            limit: 5,
            ...(paged
              ? {
                  cursor: {
                    sort,
                    key: sort === 'newest' ? Date.now() : 50_000_000,
                    id: new ObjectId().toHexString(),
                  },
                }
              : {}),
          };
          const q = buildSearch(p);
          const explain = await repo.explain(q, 'executionStats');
          const stages = planStages(explain);
          const stats = explain['executionStats'] as { nReturned: number; totalDocsExamined: number };
          expect({ sort, scope, paged, index: stages.find((x) => x.stage === 'IXSCAN')?.indexName }).toEqual({
            sort,
            scope,
            paged,
            index: q.index,
          });
          expect({
            sort,
            scope,
            paged,
            blocking: stages.filter((x) => x.stage === 'COLLSCAN' || x.stage === 'SORT'),
          }).toEqual({ sort, scope, paged, blocking: [] });
          // deleted_at is the only predicate outside the index: every document examined is returned
          expect({ sort, scope, paged, examined: stats.totalDocsExamined }).toEqual({
            sort,
            scope,
            paged,
            examined: stats.nReturned,
          });
        }
      }
    }
  });

  it('an attribute filter is applied after the index scan (attributes are free-form, not indexed): still no blocking SORT', async () => {
    const repo = new SearchRepository(db, {
      CATALOG_READ_PREFERENCE: 'primary',
      CATALOG_MAX_STALENESS_SECONDS: 90,
    });
    const q = buildSearch({
      category_id: ids['android']!,
      include_subcategories: false,
      attributes: { color: 'black' },
      sort: 'price_asc',
      limit: 5,
    });
    const explain = await repo.explain(q, 'executionStats');
    const stages = planStages(explain);
    expect(stages.find((x) => x.stage === 'IXSCAN')?.indexName).toBe('category_price');
    expect(stages.some((x) => x.stage === 'SORT' || x.stage === 'COLLSCAN')).toBe(false);
    const stats = explain['executionStats'] as { nReturned: number; totalDocsExamined: number };
    expect(stats.nReturned).toBe(5);
    expect(stats.totalDocsExamined).toBeLessThanOrEqual(2 * stats.nReturned + 1); // half the phones are black
  });
});

function planStages(explain: unknown): { stage: string; indexName?: string }[] {
  const out: { stage: string; indexName?: string }[] = [];
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(walk);
    if (n === null || typeof n !== 'object') return;
    const o = n as Record<string, unknown>;
    if (typeof o['stage'] === 'string')
      out.push({
        stage: o['stage'],
        ...(typeof o['indexName'] === 'string' ? { indexName: o['indexName'] } : {}),
      });
    Object.values(o).forEach(walk);
  };
  const e = explain as Record<string, unknown>;
  const planner = (e['queryPlanner'] ?? e) as Record<string, unknown>;
  walk(planner['winningPlan'] ?? planner);
  return out;
}
