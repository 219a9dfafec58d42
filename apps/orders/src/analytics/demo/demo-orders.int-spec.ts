import { execFile } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ANALYTICS_COLLECTIONS } from '../analytics.repository';
import { AnalyticsHarness } from '../test/analytics-harness';

const run = promisify(execFile);
const ROOT = join(__dirname, '../../../../..');

/** The catalog's two reads the demo loader uses, answered for a small tree: 3 leaf categories, 4 products each. */
function fakeCatalog(): Server {
  const leaves = ['c1', 'c2', 'c3'].map((c, i) => ({
    id: `5eed0000000000000000000${i + 1}`,
    slug: c,
    name: `Категория ${i + 1}`,
    children: [],
  }));
  const tree = [{ id: '5eed00000000000000000000', slug: 'root', name: 'Всё', children: leaves }];
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'application/json');
    if (url.pathname === '/categories') return void res.end(JSON.stringify(tree));
    if (url.pathname === '/products') {
      const c = url.searchParams.get('category_id') ?? '';
      const items = Array.from({ length: 4 }, (_, i) => ({
        id: `${c.slice(0, 20)}0${i}${c.slice(-2)}`,
        name: `Товар ${c.slice(-1)}-${i}`,
        category_id: c,
        price: `${1999 + i * 1000}.90`,
      }));
      return void res.end(JSON.stringify({ items, next_cursor: null }));
    }
    res.statusCode = 404;
    res.end('{}');
  });
}

/**
 * `npm start`'s demo orders, through the real path: the loader script (a process of its own) reads
 * products from the catalog's HTTP API, writes ~300 historic orders with their events in the outbox
 * of a real orders instance, whose relay publishes them and whose analytics consumer counts them;
 * operators then get figures. A second run inserts nothing.
 */
describe('demo orders loader', () => {
  const h = new AnalyticsHarness({ OUTBOX_POLL_MS: '200' });
  const catalog = fakeCatalog();

  beforeAll(async () => {
    await new Promise<void>((r) => catalog.listen(0, '127.0.0.1', r));
    await h.start();
  }, 180_000);
  afterAll(async () => {
    catalog.close();
    await h.stop();
  });

  const load = async () => {
    const env = {
      ...process.env,
      MONGO_URL: h.config.MONGO_URL,
      MONGO_DB: h.config.MONGO_DB,
      KAFKA_BROKERS: h.config.KAFKA_BROKERS.join(','),
      ORDERS_EVENTS_TOPIC: h.config.ORDERS_EVENTS_TOPIC,
      CATALOG_URL: `http://127.0.0.1:${(catalog.address() as AddressInfo).port}`,
    };
    const { stdout } = await run(
      process.execPath,
      [require.resolve('tsx/cli'), '--tsconfig', 'tsconfig.base.json', 'apps/orders/scripts/demo-orders.ts'],
      { cwd: ROOT, env, timeout: 240_000 },
    );
    return stdout;
  };

  it('writes ~300 orders once; the service publishes and counts them; the figures answer', async () => {
    const first = await load();
    expect(first).toMatch(/demo-orders: 300 new orders \(0 already there\) from 12 products/);
    expect(first).toContain('all 300 orders counted by the sales analytics');
    expect(
      await h.db
        .collection('orders')
        .countDocuments({
          user_id: { $in: ['a11ce000-5eed-4000-8000-000000000001', 'b0b00000-5eed-4000-8000-000000000002'] },
        }),
    ).toBe(300);

    const to = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 61 * 86_400_000).toISOString().slice(0, 10);
    const sales = await h.get<{ totals: { orders: number; revenue: string }; rows: { zone: string }[] }>(
      `/analytics/sales?from=${from}&to=${to}`,
    );
    expect(sales.status).toBe(200);
    expect(sales.body.totals.orders).toBeGreaterThan(200);
    expect(new Set(sales.body.rows.map((r) => r.zone))).toEqual(new Set(['MSK', 'SPB', 'EKB']));
    const cancellations = await h.get<{ placed: number; cancelled: number; sales_reversed: number }>(
      `/analytics/cancellations?from=${from}&to=${to}`,
    );
    expect(cancellations.body.placed).toBe(300);
    expect(cancellations.body.cancelled).toBeGreaterThan(30);
    expect(cancellations.body.sales_reversed).toBeGreaterThan(0);

    const markers = await h.markers();
    const second = await load();
    expect(second).toMatch(/demo-orders: 0 new orders \(300 already there\)/);
    expect(await h.db.collection('orders').countDocuments({})).toBe(300);
    expect(
      await h.db.collection(ANALYTICS_COLLECTIONS.applied).countDocuments({ _id: { $gte: '' } } as never),
    ).toBe(markers);
  }, 300_000);
});
