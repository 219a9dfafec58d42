/**
 * Rebuild the Cassandra read model from MongoDB (the write model):
 *   tsx --tsconfig tsconfig.base.json apps/catalog/scripts/rebuild.ts
 * Safe while the projector runs: writes carry the version-derived timestamps of the events.
 */
import { fail, scriptContext } from './context';
import { rebuild } from './read-model-sync';

async function main(): Promise<void> {
  const ctx = await scriptContext('rebuild');
  try {
    const started = Date.now();
    const r = await rebuild(ctx.db, await ctx.cassandra(), ctx.config.CATALOG_LISTING_PERIOD_DAYS);
    process.stdout.write(
      `rebuilt ${ctx.config.CASSANDRA_KEYSPACE} from ${ctx.config.MONGO_DB}: ${r.written} products written, ${r.removed} stale rows removed in ${Date.now() - started} ms\n`,
    );
  } finally {
    await ctx.close();
  }
}

main().catch(fail);
