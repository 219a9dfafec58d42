/**
 * `npm test`: every test of the workspace against real servers.
 *  1. starts the infrastructure if it is not up (local processes, containers or external);
 *  2. removes leftovers of crashed runs: test-made keyspaces, databases and topics (uniqueName's
 *     token) older than an hour — younger ones may belong to a run in progress — and says how many;
 *  3. runs typecheck (including the contracts' type-level tests) and every project's Jest suite
 *     (unit + integration) through Nx, one project at a time on this small machine;
 *  4. prints one closing line with the totals, and how many test resources the runs' global
 *     teardowns dropped (each project drops what it created, passed or failed).
 * Extra arguments go to Nx, e.g. `npm test -- --projects=inventory`; `npm test -- --affected`
 * runs only what changed (GitHub CI).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureInfra, loadConfig } from '@mw/infra';
import { describeDropped, resourceServers, sweepTestResources } from '@mw/testing';
import { runVerdict } from './test-verdict';

interface ProjectResult {
  project: string;
  passed: number;
  failed: number;
  skipped: number;
  suitesFailed: number;
}

async function main(): Promise<number> {
  const cfg = loadConfig();
  console.log(`[test] infrastructure (INFRA=${cfg.mode})`);
  const env = await ensureInfra();
  for (const [k, v] of Object.entries(env)) console.log(`[test] ${k}=${v}`);

  const servers = resourceServers({ ...process.env, ...env });
  if (servers) {
    const swept = await sweepTestResources(servers);
    console.log(
      `[test] removed ${describeDropped(swept)} test resources left by crashed runs (older than 1 h)`,
    );
  }

  const resultsDir = join(cfg.root, 'dist', 'test-results');
  const resourcesDir = join(cfg.root, 'dist', 'test-resources');
  rmSync(resultsDir, { recursive: true, force: true });
  rmSync(resourcesDir, { recursive: true, force: true });
  const args = process.argv.slice(2);
  const affected = args.includes('--affected');
  const nx = spawnSync(
    join(cfg.root, 'node_modules/.bin/nx'),
    [
      affected ? 'affected' : 'run-many',
      '-t',
      'typecheck',
      'test',
      '--parallel=1',
      '--outputStyle=stream',
      ...args.filter((a) => a !== '--affected'),
    ],
    {
      cwd: cfg.root,
      stdio: 'inherit',
      env: { ...process.env, ...env, NX_DAEMON: 'false', FORCE_COLOR: '0' },
    },
  );

  const results: ProjectResult[] = existsSync(resultsDir)
    ? readdirSync(resultsDir).map(
        (f) => JSON.parse(readFileSync(join(resultsDir, f), 'utf8')) as ProjectResult,
      )
    : [];
  const sum = (k: keyof Omit<ProjectResult, 'project'>): number => results.reduce((n, r) => n + r[k], 0);
  for (const r of results.sort((a, b) => a.project.localeCompare(b.project))) {
    console.log(
      `[test] ${r.project.padEnd(12)} ${r.passed} passed, ${r.failed} failed${r.skipped ? `, ${r.skipped} skipped` : ''}`,
    );
  }
  const failed = sum('failed') + sum('suitesFailed');
  const dropped = existsSync(resourcesDir)
    ? readdirSync(resourcesDir).reduce(
        (n, f) =>
          n + (JSON.parse(readFileSync(join(resourcesDir, f), 'utf8')) as { dropped: number }).dropped,
        0,
      )
    : 0;
  console.log(`[test] the runs dropped ${dropped} keyspaces, databases and topics they had created`);
  console.log(
    `\ntests: ${sum('passed')} passed, ${sum('failed')} failed${sum('skipped') ? `, ${sum('skipped')} skipped` : ''}`,
  );
  if (sum('skipped') > 0) {
    console.error('[test] skipped tests are failures in this project');
    return 1;
  }
  const verdict = runVerdict(nx.status, failed, results.length);
  if (verdict) console.error(`[test] FAILED: ${verdict}`);
  return verdict ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`[test] failed: ${(e as Error).message}`);
    process.exit(1);
  },
);
