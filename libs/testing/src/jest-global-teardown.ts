/**
 * Jest globalTeardown (every project with integration tests): drops the keyspaces, databases and
 * topics this run named with uniqueName() — recorded in the run's ledger by the global setup's
 * MW_TEST_LEDGER — whether its tests passed or failed. Prints how many it dropped and leaves the
 * figure in dist/test-resources/<project>.json for `npm test`'s closing lines.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  describeDropped,
  dropRecordedTestResources,
  droppedCount,
  resourceServers,
  TEST_LEDGER_VARIABLE,
} from './test-resources';

export default async function globalTeardown(
  _global: unknown,
  project?: { displayName?: { name?: string } },
): Promise<void> {
  const ledger = process.env[TEST_LEDGER_VARIABLE];
  const servers = resourceServers();
  if (!ledger || !servers) return;
  const dropped = await dropRecordedTestResources(servers, ledger);
  if (droppedCount(dropped) === 0) return;
  process.stderr.write(`[test-resources] dropped this run's ${describeDropped(dropped)}\n`);
  const dir = join(__dirname, '../../../dist/test-resources');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${project?.displayName?.name ?? 'unknown'}-${process.pid}.json`),
    JSON.stringify({ dropped: droppedCount(dropped) }),
  );
}
