import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Loads the demo catalog (3-level Russian category tree, ≥ 2,000 products) through the running
 * catalog service, once: a marker under .infra records that it was loaded. The seed itself is
 * idempotent too, so a lost marker only costs time.
 */
export async function loadDemoData(root: string, infra: Readonly<Record<string, string>>, log: (m: string) => void): Promise<void> {
  const marker = join(root, '.infra', 'services', 'demo-data.loaded');
  if (existsSync(marker)) {
    log('demo data already loaded');
    return;
  }
  log('loading demo data (categories, products, stock)');
  execFileSync(process.execPath, [require.resolve('tsx/cli'), '--tsconfig', 'tsconfig.base.json', 'apps/catalog/scripts/seed.ts', '--no-wait'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...infra, CATALOG_URL: 'http://127.0.0.1:3001', INVENTORY_URL: 'http://127.0.0.1:3002' },
  });
  mkdirSync(join(root, '.infra', 'services'), { recursive: true });
  writeFileSync(marker, new Date().toISOString());
}
