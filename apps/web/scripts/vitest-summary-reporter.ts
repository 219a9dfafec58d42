/** Vitest reporter: the project's totals in dist/test-results/web.json, read by `npm test` (like the Jest one). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: readonly TestModule[]): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    let suitesFailed = 0;
    for (const m of modules) {
      if (m.state() === 'failed' && [...m.children.allTests()].length === 0) suitesFailed++;
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === 'passed') passed++;
        else if (s === 'failed') failed++;
        else skipped++;
      }
    }
    const dir = join(__dirname, '../../../dist/test-results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'web.json'),
      JSON.stringify({ project: 'web', passed, failed, skipped, suitesFailed, at: new Date().toISOString() }),
    );
  }
}
