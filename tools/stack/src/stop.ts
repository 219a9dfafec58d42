/** `npm stop`: stops the services `npm start` launched, then the infrastructure. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig, serverPaths, stopProcess } from '@mw/infra';
import { STACK_SERVICES } from './services';

async function main(): Promise<void> {
  const cfg = loadConfig();
  const servicesDir = join(cfg.infraDir, 'services');
  for (const s of [...STACK_SERVICES].reverse()) {
    const result = await stopProcess(serverPaths(servicesDir, s.name), servicesDir, 15_000, (m) => console.log(`[stop] ${s.name}: ${m}`));
    console.log(`[stop] ${s.name}: ${result}`);
  }
  execFileSync(process.execPath, [require.resolve('tsx/cli'), '--tsconfig', 'tsconfig.base.json', 'tools/infra/src/cli.ts', 'down'], { cwd: cfg.root, stdio: 'inherit' });
}

main().catch((e: unknown) => {
  console.error(`[stop] failed: ${(e as Error).message}`);
  process.exit(1);
});
