/**
 * `npm stop`: stops every process `npm start` started for this checkout — the supervisor and its
 * services, and any process of this checkout still alive without it (the registry remembers them
 * all, with pid + start time) — says what it stopped, then stops the infrastructure.
 */
import { execFileSync } from 'node:child_process';
import { loadConfig } from '@mw/infra';
import { stackLayout, stopServices } from './stack';

async function main(): Promise<void> {
  const cfg = loadConfig();
  await stopServices(stackLayout(cfg.root, cfg.infraDir), (m) => console.log(`[stop] ${m}`));
  execFileSync(
    process.execPath,
    [require.resolve('tsx/cli'), '--tsconfig', 'tsconfig.base.json', 'tools/infra/src/cli.ts', 'down'],
    { cwd: cfg.root, stdio: 'inherit' },
  );
}

main().catch((e: unknown) => {
  console.error(`[stop] failed: ${(e as Error).message}`);
  process.exit(1);
});
