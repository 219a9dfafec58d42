/**
 * `npm run chaos [-- --profile short|long|partitions|partitions-short] [--seed N] [--out file.json] [--keep-infra] [--no-build] [--dist dir]`
 * `npm run chaos -- --stop-infra` stops the servers a `--keep-infra` run left running.
 *
 * Builds the service bundles (Nx cache), starts private servers, runs the seeded checkout storm
 * with the fault plan, prints the table and exits 0 only when every invariant holds. The same seed
 * replays the same plan and storm choices (timings still vary with the machine).
 *
 * The partitions profiles run on the cluster topology (ADR 0062; root, network namespaces): they
 * bring `npm run cluster -- up` up (Keycloak included) and down again unless --keep-infra.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ensureInfra, loadConfig } from '@mw/infra';
import { ROOT } from '../stack';
import { ChaosInfra } from './infra';
import { PROFILES, Profile } from './plan';
import { runChaos } from './run';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<number> {
  if (process.argv.includes('--stop-infra')) {
    // the servers a run started with --keep-infra
    await new ChaosInfra(ROOT, (line) => process.stdout.write(`${line}\n`)).down();
    return 0;
  }
  const profileName = arg('profile') ?? 'short';
  if (!(profileName in PROFILES)) throw new Error(`--profile must be one of ${Object.keys(PROFILES).join('|')}, got ${profileName}`);
  const base = PROFILES[profileName as Profile['name']];
  const stormSeconds = arg('storm-seconds');
  const profile: Profile = stormSeconds ? { ...base, stormSeconds: Number(stormSeconds) } : base;
  const seedText = arg('seed');
  const seed = seedText === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(seedText);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`--seed must be a non-negative integer, got ${seedText}`);

  const dist = arg('dist');
  if (!process.argv.includes('--no-build') && !dist) {
    const nx = join(ROOT, 'node_modules/.bin/nx');
    for (const args of [['run-many', '-t', 'build', '-p', 'catalog,inventory,carts,orders'], ['run', 'catalog:build-projector']]) {
      const r = spawnSync(nx, [...args, '--outputStyle=stream'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NX_DAEMON: 'false' } });
      if (r.status !== 0) throw new Error(`nx ${args.join(' ')} failed`);
    }
  }
  // Tokens come from the main install's Keycloak (started if needed; the chaos servers are private, it is not);
  // on the cluster topology from the cluster's own Keycloak, in its namespace
  if (base.topology === 'single' && !process.env['OIDC_ISSUER']) {
    await ensureInfra({ config: loadConfig(process.env), servers: ['keycloak'], exportToProcessEnv: true });
  }
  const report = await runChaos({ seed, profile, keepInfra: process.argv.includes('--keep-infra'), ...(dist ? { dist: resolve(dist) } : {}) });
  const out = arg('out');
  if (out) {
    const file = resolve(process.cwd(), out);
    mkdirSync(dirname(file), { recursive: true });
    const command = `npm run chaos -- ${process.argv.slice(2).join(' ')}`.trim();
    writeFileSync(file, `${JSON.stringify({ command, ...report }, null, 2)}\n`);
    process.stdout.write(`[chaos] results written to ${out}\n`);
  }
  return report.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`[chaos] failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
