/**
 * Anti-entropy check (seed 003): diffs MongoDB against Cassandra and prints mismatches.
 *   tsx --tsconfig tsconfig.base.json apps/catalog/scripts/verify.ts
 * Exit code 0: in sync; 2: mismatches (run the rebuild command to repair).
 */
import { fail, scriptContext } from './context';
import { diffAll } from './read-model-sync';

async function main(): Promise<void> {
  const ctx = await scriptContext('verify');
  try {
    const { sources, mismatches, rows } = await diffAll(
      ctx.db,
      await ctx.cassandra(),
      ctx.config.CATALOG_LISTING_PERIOD_DAYS,
    );
    const counts = mismatches.reduce<Record<string, number>>(
      (acc, m) => ({ ...acc, [m.kind]: (acc[m.kind] ?? 0) + 1 }),
      {},
    );
    for (const m of mismatches.slice(0, 50)) process.stdout.write(`${JSON.stringify(m)}\n`);
    process.stdout.write(
      `verify ${ctx.config.MONGO_DB} ↔ ${ctx.config.CASSANDRA_KEYSPACE}: ${sources.size} products in MongoDB, ${rows.length} in products_by_id, ` +
        `${mismatches.length} mismatch(es) ${JSON.stringify(counts)}\n`,
    );
    process.exitCode = mismatches.length === 0 ? 0 : 2;
  } finally {
    await ctx.close();
  }
}

main().catch(fail);
