/**
 * `npm run bench`: every service benchmark in turn, against the local infrastructure (started if
 * needed). Each writes its figures, the command, the machine and the server versions to
 * apps/<service>/bench/results.json.
 */
import { spawnSync } from 'node:child_process';
import { ensureInfra } from '@mw/infra';

const BENCHES = ['bench:catalog', 'bench:inventory', 'bench:checkout'] as const;

async function main(): Promise<number> {
  const env = await ensureInfra();
  let failed = 0;
  for (const script of BENCHES) {
    console.log(`\n[bench] npm run ${script}`);
    const r = spawnSync('npm', ['run', '--silent', script], { stdio: 'inherit', env: { ...process.env, ...env } });
    if (r.status !== 0) failed++;
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
