/**
 * Checks the ledger invariant from the command line (no Nest, plain classes):
 *   MONGO_URL=... [MONGO_DB=inventory] npx tsx --tsconfig tsconfig.base.json apps/inventory/scripts/check-ledger.ts [product_id] [zone]
 * Exit code 0 when every (product, zone) document satisfies
 * available + reserved + committed = received − adjustments, matches the replay of its ledger, and
 * its committed units equal those of committed reservations.
 */
import { createMongoClient } from '@mw/persistence';
import { z } from 'zod';
import { env, loadConfig } from '@mw/platform';
import { LedgerRepository } from '../src/ledger/ledger.repository';
import { LedgerService } from '../src/ledger/ledger.service';
import { ReservationsRepository } from '../src/reservations/reservations.repository';

async function main(): Promise<number> {
  const config = loadConfig(z.object({ MONGO_URL: env.mongoUrl(), MONGO_DB: z.string().min(1).default('inventory') }));
  const [productId, zone] = process.argv.slice(2);
  const client = await createMongoClient(config.MONGO_URL).connect();
  try {
    const db = client.db(config.MONGO_DB);
    const report = await new LedgerService(db, new LedgerRepository(db), new ReservationsRepository(db)).check({ product_id: productId, zone }, 1_000_000);
    console.log(JSON.stringify(report, null, 2));
    return report.ok ? 0 : 2;
  } finally {
    await client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error((e as Error).message);
    process.exit(1);
  },
);
