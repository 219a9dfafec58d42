/**
 * The production bundle's size budget (gzip, what a browser downloads): fails naming the sizes when
 * the built app (dist/apps/web, `nx run web:build`) outgrows it. Run by `nx run web:size`, a
 * dependency of the web tests, so CI checks it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export const BUDGET_GZIP_BYTES = { js: 160 * 1024, css: 10 * 1024 } as const;

export function measure(dir: string): { js: number; css: number } {
  const sizes = { js: 0, css: 0 };
  for (const f of readdirSync(dir)) {
    const kind = f.endsWith('.js') ? 'js' : f.endsWith('.css') ? 'css' : undefined;
    if (kind) sizes[kind] += gzipSync(readFileSync(join(dir, f)), { level: 9 }).length;
  }
  return sizes;
}

if (require.main === module) {
  const sizes = measure(join(__dirname, '../../../dist/apps/web/assets'));
  const over = (['js', 'css'] as const).filter((k) => sizes[k] > BUDGET_GZIP_BYTES[k]);
  const line = (k: 'js' | 'css'): string =>
    `${k} ${(sizes[k] / 1024).toFixed(1)} kB gzip (budget ${BUDGET_GZIP_BYTES[k] / 1024} kB)`;
  if (sizes.js === 0) {
    console.error('[web] no bundle in dist/apps/web/assets: run `nx run web:build`');
    process.exit(1);
  }
  console.log(`[web] bundle: ${line('js')}, ${line('css')}`);
  if (over.length > 0) {
    console.error(`[web] over the size budget: ${over.map(line).join(', ')}`);
    process.exit(1);
  }
}
