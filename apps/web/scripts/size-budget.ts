/**
 * The production bundle's size budget (gzip, what a browser downloads): fails naming the sizes when
 * the built app (dist/apps/web, `nx run web:build`) outgrows it. Run by `nx run web:size`, a
 * dependency of the web tests, so CI checks it.
 *
 * Two budgets (ADR 0013): what every visitor downloads before the first page shows (the scripts and
 * styles `index.html` names), and each chunk loaded later on demand (`import()`: the operator's
 * charts, chart.js). A storefront visitor never downloads a lazy chunk, so it does not count against
 * the first; a lazy chunk that grows past its own budget, or a lazy import that becomes a static one
 * (its code moves into the entry), still fails.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';

export const BUDGET_GZIP_BYTES = { initialJs: 160 * 1024, css: 10 * 1024, lazyChunk: 64 * 1024 } as const;

export interface BundleSizes {
  /** The JavaScript `index.html` loads (entry and module preloads). */
  readonly initialJs: number;
  readonly css: number;
  /** Each JavaScript chunk index.html does not name: loaded by a dynamic import. */
  readonly lazy: readonly { readonly file: string; readonly bytes: number }[];
}

/** The files of `assets/` that index.html names (script src, link href). */
export function initialAssets(indexHtml: string): Set<string> {
  const names = new Set<string>();
  for (const m of indexHtml.matchAll(/(?:src|href)="[^"]*\/assets\/([^"]+)"/g)) if (m[1]) names.add(m[1]);
  return names;
}

export function measure(distDir: string): BundleSizes {
  const assets = join(distDir, 'assets');
  const index = join(distDir, 'index.html');
  const initial = initialAssets(existsSync(index) ? readFileSync(index, 'utf8') : '');
  let initialJs = 0;
  let css = 0;
  const lazy: { file: string; bytes: number }[] = [];
  for (const f of readdirSync(assets)) {
    if (!f.endsWith('.js') && !f.endsWith('.css')) continue;
    const bytes = gzipSync(readFileSync(join(assets, f)), { level: 9 }).length;
    if (f.endsWith('.css')) css += bytes;
    else if (initial.has(basename(f))) initialJs += bytes;
    else lazy.push({ file: f, bytes });
  }
  return { initialJs, css, lazy };
}

/** What exceeds its budget, as sentences; empty when everything fits. */
export function overBudget(s: BundleSizes): string[] {
  const kB = (n: number): string => `${(n / 1024).toFixed(1)} kB`;
  const over: string[] = [];
  if (s.initialJs > BUDGET_GZIP_BYTES.initialJs)
    over.push(`initial js ${kB(s.initialJs)} gzip (budget ${kB(BUDGET_GZIP_BYTES.initialJs)})`);
  if (s.css > BUDGET_GZIP_BYTES.css) over.push(`css ${kB(s.css)} gzip (budget ${kB(BUDGET_GZIP_BYTES.css)})`);
  for (const c of s.lazy)
    if (c.bytes > BUDGET_GZIP_BYTES.lazyChunk)
      over.push(`lazy chunk ${c.file} ${kB(c.bytes)} gzip (budget ${kB(BUDGET_GZIP_BYTES.lazyChunk)})`);
  return over;
}

if (require.main === module) {
  const sizes = measure(join(__dirname, '../../../dist/apps/web'));
  if (sizes.initialJs === 0) {
    console.error('[web] no entry script in dist/apps/web: run `nx run web:build`');
    process.exit(1);
  }
  const kB = (n: number): string => `${(n / 1024).toFixed(1)} kB`;
  console.log(
    `[web] bundle (gzip): initial js ${kB(sizes.initialJs)} (budget ${kB(BUDGET_GZIP_BYTES.initialJs)}), ` +
      `css ${kB(sizes.css)} (budget ${kB(BUDGET_GZIP_BYTES.css)}), lazy chunks ` +
      `${sizes.lazy.map((c) => `${c.file} ${kB(c.bytes)}`).join(', ') || 'none'} (budget ${kB(BUDGET_GZIP_BYTES.lazyChunk)} each)`,
  );
  const over = overBudget(sizes);
  if (over.length > 0) {
    console.error(`[web] over the size budget: ${over.join(', ')}`);
    process.exit(1);
  }
}
