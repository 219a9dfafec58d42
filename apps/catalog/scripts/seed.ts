/**
 * Loads the demo catalogue once (idempotent): the category tree and 2,400 products, written
 * through the catalog's own services so every change goes through the outbox → Kafka → the
 * projector → Cassandra. Re-running inserts nothing.
 *   tsx --tsconfig tsconfig.base.json apps/catalog/scripts/seed.ts [--count 2400] [--no-wait]
 */
import { ObjectId } from 'mongodb';
import pino from 'pino';
import { KafkaPublisher, OutboxRelay, createKafka } from '@mw/messaging';
import { kafkaSaslOf, type KafkaSasl } from '@mw/platform';
import { CategoriesRepository } from '../src/categories/categories.repository';
import { CategoriesService } from '../src/categories/categories.service';
import { Category } from '../src/categories/category';
import { DEMO_TREE, DemoCategory, demoProducts } from '../src/demo/demo-data';
import { ProductsReparenter } from '../src/products/products-reparenter';
import { ProductsRepository } from '../src/products/products.repository';
import { ProductsService } from '../src/products/products.service';
import { ensureCatalogSchema, OUTBOX_COLLECTIONS, PRODUCTS } from '../src/shared/catalog-db';
import { fail, scriptContext } from './context';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

async function main(): Promise<void> {
  const ctx = await scriptContext('seed');
  const count = Number(arg('count') ?? 2400);
  try {
    await ensureCatalogSchema(ctx.db, ctx.logger);
    const categoriesRepo = new CategoriesRepository(ctx.db);
    const productsRepo = new ProductsRepository(ctx.db);
    const categories = new CategoriesService(
      categoriesRepo,
      new ProductsReparenter(productsRepo),
      ctx.logger,
    );
    const products = new ProductsService(productsRepo, categoriesRepo);

    const bySlug = new Map<string, Category>();
    let newCategories = 0;
    const ensure = async (c: DemoCategory, parent: Category | null): Promise<void> => {
      let cat = await categoriesRepo.findBySlug(c.slug);
      if (!cat) {
        cat = await categories.create({ name: c.name, slug: c.slug, parent_id: parent?.id ?? null });
        newCategories++;
      }
      bySlug.set(c.slug, cat);
      for (const child of c.children ?? []) await ensure(child, cat);
    };
    for (const root of DEMO_TREE) await ensure(root, null);

    let created = 0;
    const list = demoProducts(count);
    const present = await ctx.db
      .collection(PRODUCTS)
      .countDocuments({ _id: { $in: list.map((p) => new ObjectId(p.id)) } });
    if (present === list.length && newCategories === 0) {
      process.stdout.write(
        `seed: demo catalogue already loaded (${bySlug.size} categories, ${present} products)\n`,
      );
      if (!process.argv.includes('--no-wait'))
        await drainOutbox(ctx.db, ctx.config.KAFKA_BROKERS, kafkaSaslOf(ctx.config));
      return;
    }
    for (let i = 0; i < list.length; i += 200) {
      created += await products.createMany(
        list.slice(i, i + 200).map((p) => ({
          id: p.id,
          created_at: p.created_at,
          name: p.name,
          category_id: bySlug.get(p.leaf)!.id,
          price: p.price,
          attributes: p.attributes,
          pricing: p.pricing,
        })),
      );
    }
    process.stdout.write(
      `seed: ${newCategories} new categories (${bySlug.size} in the tree), ${created} new products (${list.length - created} already there)\n`,
    );
    if (process.argv.includes('--no-wait')) return;
    await drainOutbox(ctx.db, ctx.config.KAFKA_BROKERS, kafkaSaslOf(ctx.config));
  } finally {
    await ctx.close();
  }
}

/** Publishes what is still in the outbox (or waits for the running API's relay), bounded. */
async function drainOutbox(
  db: import('mongodb').Db,
  brokers: readonly string[],
  sasl: KafkaSasl | undefined,
): Promise<void> {
  const logger = pino({ level: 'warn' });
  // as the catalog itself: only `catalog` may write its topics (ADR 0009)
  const publisher = new KafkaPublisher(createKafka({ brokers, sasl, clientId: 'catalog-seed', logger }));
  await publisher.connect();
  const relay = new OutboxRelay({
    db,
    collections: OUTBOX_COLLECTIONS,
    publisher,
    logger,
    name: 'catalog',
    batchSize: 500,
  });
  const pending = async () => {
    let n = 0;
    for (const c of OUTBOX_COLLECTIONS)
      n += await db.collection(c).countDocuments({ '_outbox.0': { $exists: true } });
    return n;
  };
  const deadline = Date.now() + 180_000;
  try {
    while (Date.now() < deadline) {
      const left = await pending();
      if (left === 0) break;
      if ((await relay.drainOnce()) === 0) await new Promise((r) => setTimeout(r, 500)); // the API's relay holds the lease
    }
    const left = await pending();
    process.stdout.write(
      left === 0
        ? 'seed: outbox drained, events published\n'
        : `seed: ${left} documents still hold outbox entries (the API relay will publish them)\n`,
    );
  } finally {
    await relay.stop();
    await publisher.disconnect();
  }
}

main().catch(fail);
