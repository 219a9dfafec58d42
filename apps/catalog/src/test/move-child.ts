/**
 * A category move in its own process, so a test can SIGKILL it between steps.
 * argv: mongoUrl dbName slug parentId leaseMs stepDelayMs
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createMongoClient } from '@mw/persistence';
import { catalogOn } from './move-kit';

async function main(): Promise<void> {
  const [mongoUrl, dbName, slug, parentId, leaseMs, stepDelayMs] = process.argv.slice(2) as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const client = await createMongoClient(mongoUrl).connect();
  const { categories } = catalogOn(client.db(dbName), { leaseMs: Number(leaseMs), sweepMs: 60_000 });
  categories.onMoveStep = async (step) => {
    process.stdout.write(`step ${step}\n`);
    await sleep(Number(stepDelayMs));
  };
  process.stdout.write('move-started\n');
  await categories.move(slug, parentId === 'null' ? null : parentId);
  process.stdout.write('move-done\n');
  await client.close();
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
