/**
 * `npm run status`: every service of this checkout's stack with pid, uptime, restarts and
 * readiness (from the supervisor's state, /proc and /health/ready), then the infrastructure
 * (`infra:status`).
 */
import { execFileSync } from 'node:child_process';
import { loadConfig } from '@mw/infra';
import { stackSettings } from './services';
import { serviceStatus, stackLayout, type StatusRow } from './stack';

function table(rows: readonly StatusRow[]): string {
  const columns: (keyof StatusRow)[] = ['service', 'port', 'pid', 'uptime', 'restarts', 'state'];
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => r[c].length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => r[c])))].join(
    '\n',
  );
}

async function main(): Promise<void> {
  const cfg = loadConfig();
  const { supervisor, rows } = await serviceStatus(stackLayout(cfg.root, cfg.infraDir), stackSettings());
  console.log(`services (${supervisor})\n${table(rows)}\n`);
  execFileSync(
    process.execPath,
    [require.resolve('tsx/cli'), '--tsconfig', 'tsconfig.base.json', 'tools/infra/src/cli.ts', 'status'],
    { cwd: cfg.root, stdio: 'inherit' },
  );
}

main().catch((e: unknown) => {
  console.error(`[status] failed: ${(e as Error).message}`);
  process.exit(1);
});
