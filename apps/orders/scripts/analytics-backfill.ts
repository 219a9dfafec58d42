/**
 * Counts every order already in the orders database into the sales read model (ADR 0051): for a
 * deployment whose orders are older than the orders topic keeps its events (7 days), or after the
 * read model's collections were dropped to be rebuilt. Each order goes through the consumer's own
 * transaction (AnalyticsRepository.refresh), so running it while the service consumes — or twice —
 * counts nothing twice. Reads orders in _id order from the primary, a batch at a time.
 *
 *   tsx --tsconfig tsconfig.base.json apps/orders/scripts/analytics-backfill.ts [--concurrency 4]
 *   env: MONGO_URL, KAFKA_BROKERS (the orders settings, validated by its config)
 */
import { ReadPreference } from 'mongodb';
import { createMongoClient } from '@mw/persistence';
import { AnalyticsRepository } from '../src/analytics/analytics.repository';
import { loadOrdersConfig } from '../src/config';
import { ORDERS_COLLECTION } from '../src/orders/orders.repository';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

async function main(): Promise<void> {
  const config = loadOrdersConfig();
  const concurrency = Math.max(1, Math.min(32, Number(arg('concurrency') ?? 4)));
  const mongo = await createMongoClient(config.MONGO_URL, {
    appName: 'orders-analytics-backfill',
    writeConcern: { w: 'majority' },
  }).connect();
  try {
    const db = mongo.db(config.MONGO_DB);
    const repo = new AnalyticsRepository(mongo, db, ReadPreference.primary);
    await repo.ensureIndexes();
    const orders = db.collection<{ _id: string }>(ORDERS_COLLECTION);
    const outcomes = { applied: 0, unchanged: 0, missing: 0 };
    let after = '';
    for (;;) {
      const ids = (
        await orders
          .find({ _id: { $gt: after } }, { projection: { _id: 1 }, readPreference: ReadPreference.primary })
          .sort({ _id: 1 })
          .limit(500)
          .toArray()
      ).map((d) => d._id);
      if (ids.length === 0) break;
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < ids.length) outcomes[(await repo.refresh(ids[next++]!)).kind]++;
        }),
      );
      after = ids[ids.length - 1]!;
      process.stdout.write(
        `analytics-backfill: ${outcomes.applied + outcomes.unchanged + outcomes.missing} orders (${outcomes.applied} newly counted)\n`,
      );
    }
    process.stdout.write(
      `analytics-backfill: done — ${outcomes.applied} orders newly counted, ${outcomes.unchanged} already counted\n`,
    );
  } finally {
    await mongo.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`analytics-backfill: failed: ${(e as Error).message}\n`);
  process.exit(1);
});
