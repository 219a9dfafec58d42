/**
 * Loads the demo's historic orders once (idempotent): about 300 orders of alice and bob over the
 * last ~60 days in MSK, SPB and EKB, of the demo catalogue's products (read from the catalog's
 * HTTP API), mostly completed, some delivering and confirmed, some cancelled with each reason, a
 * few cancelled by the customer after confirmation. Each is written as the orders service writes
 * an order — the document with its saga and its order events in `_outbox` — so the running
 * service's relay publishes the events and its analytics consumer counts them through the real
 * path (ADR 0051). Ids derive from the order's number: a rerun inserts nothing twice.
 *
 * Historic orders do not touch inventory: they predate the stock count, so their outbox carries
 * order events only (no ReserveStock/CommitStock), and the stock levels stay as loaded.
 *
 *   tsx --tsconfig tsconfig.base.json apps/orders/scripts/demo-orders.ts [--no-wait]
 *   env: MONGO_URL, KAFKA_BROKERS (the orders settings, validated by its config), CATALOG_URL (http://127.0.0.1:3001)
 */
import { z } from 'zod';
import { createMongoClient, duplicateKeysOnly } from '@mw/persistence';
import { parseMoney } from '@mw/platform';
import { ANALYTICS_COLLECTIONS } from '../src/analytics/analytics.repository';
import { DemoProduct, demoOrderPlan } from '../src/analytics/demo/demo-plan';
import { historicOrder, HistoricOrderDoc } from '../src/analytics/demo/historic-orders';
import { markerId } from '../src/analytics/sales-facts';
import { loadOrdersConfig } from '../src/config';

/** The realm's demo customers (tools/infra/keycloak/mobile-world-realm.json). */
const ALICE = 'a11ce000-5eed-4000-8000-000000000001';
const BOB = 'b0b00000-5eed-4000-8000-000000000002';
const PER_CATEGORY = 4;

const CategoryNode: z.ZodType<{ id: string; children: unknown[] }> = z.lazy(() =>
  z.object({ id: z.string(), children: z.array(CategoryNode) }),
);
const ProductPage = z.object({
  items: z.array(z.object({ id: z.string(), name: z.string(), category_id: z.string(), price: z.string() })),
});

const log = (m: string): void => void process.stdout.write(`demo-orders: ${m}\n`);

async function getJson<T>(url: string, schema: z.ZodType<T>): Promise<T> {
  const r = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status} ${await r.text()}`);
  return schema.parse(await r.json());
}

/** A few of the newest products of every leaf category, as the catalog serves them. */
async function demoProducts(catalogUrl: string): Promise<DemoProduct[]> {
  const tree = await getJson(`${catalogUrl}/categories`, z.array(CategoryNode));
  const leaves: string[] = [];
  const walk = (n: { id: string; children: unknown[] }): void => {
    if (n.children.length === 0) leaves.push(n.id);
    for (const c of n.children as { id: string; children: unknown[] }[]) walk(c);
  };
  tree.forEach(walk);
  const products: DemoProduct[] = [];
  for (const leaf of leaves) {
    const page = await getJson(
      `${catalogUrl}/products?category_id=${leaf}&include_subcategories=false&sort=newest&limit=${PER_CATEGORY}`,
      ProductPage,
    );
    for (const p of page.items) {
      const price = parseMoney(p.price);
      if (price.ok) products.push({ id: p.id, name: p.name, category_id: p.category_id, price: price.minor });
    }
  }
  if (products.length === 0)
    throw new Error(`the catalog at ${catalogUrl} has no products: load the demo catalogue first`);
  return products;
}

async function main(): Promise<void> {
  const config = loadOrdersConfig();
  const catalogUrl = z
    .url()
    .parse(process.env['CATALOG_URL'] ?? 'http://127.0.0.1:3001')
    .replace(/\/+$/, '');
  const products = await demoProducts(catalogUrl);
  const plan = demoOrderPlan({ products, customers: [ALICE, BOB], zones: config.ZONES, now: new Date() });
  const docs = plan.map((s) => historicOrder(s, config.ORDERS_EVENTS_TOPIC).doc);
  const mongo = await createMongoClient(config.MONGO_URL, {
    appName: 'orders-demo-orders',
    writeConcern: { w: 'majority' },
    serverSelectionTimeoutMS: 15_000,
  }).connect();
  try {
    const db = mongo.db(config.MONGO_DB);
    let inserted = 0;
    try {
      inserted = (await db.collection<HistoricOrderDoc>('orders').insertMany(docs, { ordered: false }))
        .insertedCount;
    } catch (e) {
      // ids repeat on a rerun: the orders already there are kept as they are
      if (!duplicateKeysOnly(e)) throw e;
      inserted = e.insertedCount;
    }
    const kinds = new Map<string, number>();
    for (const s of plan) kinds.set(s.outcome.kind, (kinds.get(s.outcome.kind) ?? 0) + 1);
    log(
      `${inserted} new orders (${docs.length - inserted} already there) from ${products.length} products: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}`,
    );
    if (process.argv.includes('--no-wait')) return;
    // the running orders service relays the events; its analytics consumer counts each order
    const placed = docs.map((d) => markerId(d._id, 'placed'));
    const deadline = Date.now() + 180_000;
    let counted = 0;
    while (Date.now() < deadline) {
      counted = await db
        .collection<{ _id: string }>(ANALYTICS_COLLECTIONS.applied)
        .countDocuments({ _id: { $in: placed } });
      if (counted === docs.length) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    log(
      counted === docs.length
        ? `all ${counted} orders counted by the sales analytics`
        : `${counted} of ${docs.length} orders counted so far (the orders service keeps going)`,
    );
  } finally {
    await mongo.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`demo-orders: failed: ${(e as Error).message}\n`);
  process.exit(1);
});
