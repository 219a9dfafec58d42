/**
 * `npm run bench`: every service benchmark in turn, against the local infrastructure (started if
 * needed). Each writes its figures, the command, the machine and the server versions to
 * apps/<service>/bench/results.json.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureInfra } from '@mw/infra';
import {
  describeDropped,
  dropRecordedTestResources,
  resourceServers,
  TEST_LEDGER_VARIABLE,
} from '@mw/testing';

const BENCHES = ['bench:catalog', 'bench:inventory', 'bench:checkout'] as const;

async function main(): Promise<number> {
  const env = await ensureInfra();
  // every name the benchmarks make with uniqueName() goes to this ledger; dropped at the end, passed or failed
  const ledger = join(tmpdir(), `mw-bench-names-${process.pid}-${randomBytes(4).toString('hex')}.txt`);
  let failed = 0;
  try {
    for (const script of BENCHES) {
      console.log(`\n[bench] npm run ${script}`);
      const r = spawnSync('npm', ['run', '--silent', script], {
        stdio: 'inherit',
        env: { ...process.env, ...env, [TEST_LEDGER_VARIABLE]: ledger },
      });
      if (r.status !== 0) failed++;
    }
  } finally {
    const servers = resourceServers({ ...process.env, ...env });
    if (servers)
      console.log(
        `[bench] dropped the benchmarks' ${describeDropped(await dropRecordedTestResources(servers, ledger))}`,
      );
  }
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`[bench] failed: ${(e as Error).message}`);
    process.exit(1);
  },
);
