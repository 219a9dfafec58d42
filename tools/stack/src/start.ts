/**
 * `npm start`: the whole system on this machine, from nothing.
 *  1. infrastructure (Kafka, Cassandra, MongoDB server, Keycloak) via tools/infra — installs what it needs;
 *  2. builds the service bundles with Nx;
 *  3. starts every service detached (logs and pids under .infra/services/<name>/);
 *  4. waits until each answers /health/ready;
 *  5. loads the demo data once;
 *  6. prints the URLs and one curl per demo user for a token.
 * Running it again is safe: running services are left alone.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import {
  ensureInfra,
  loadConfig,
  readPidState,
  realmClientSecret,
  realmDemoUsers,
  serverPaths,
  spawnDetached,
  tailFile,
} from '@mw/infra';
import { bundlePath, serviceEnv, STACK_SERVICES, StackService } from './services';
import { loadDemoData } from './demo-data';

const log = (m: string): void => console.log(`[start] ${m}`);

async function ready(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

async function waitReady(s: StackService, logFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await ready(s.port)) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${s.name} not ready on :${s.port} after ${timeoutMs / 1000}s; last log lines:\n${tailFile(logFile, 20).join('\n')}`);
}

async function main(): Promise<void> {
  const cfg = loadConfig();
  log(`infrastructure (INFRA=${cfg.mode})`);
  const infra = await ensureInfra();

  log('building service bundles');
  execFileSync(join(cfg.root, 'node_modules/.bin/nx'), ['run-many', '-t', 'build', 'build-projector', '--projects=catalog,inventory,carts,orders', '--parallel=2'], {
    cwd: cfg.root,
    stdio: 'inherit',
    env: { ...process.env, NX_DAEMON: 'false' },
  });

  const servicesDir = join(cfg.infraDir, 'services');
  for (const s of STACK_SERVICES) {
    const paths = serverPaths(servicesDir, s.name);
    const state = readPidState(paths, servicesDir);
    if (state.kind === 'alive' && (await ready(s.port))) {
      log(`${s.name} already running (pid ${state.pid})`);
      continue;
    }
    const pid = await spawnDetached({ command: process.execPath, args: ['--enable-source-maps', bundlePath(cfg.root, s)], env: serviceEnv(s, infra), cwd: cfg.root }, paths);
    log(`${s.name} started (pid ${pid}, log ${paths.logFile.replace(`${cfg.root}/`, '')})`);
  }
  await Promise.all(STACK_SERVICES.map((s) => waitReady(s, serverPaths(servicesDir, s.name).logFile, 120_000)));
  log('all services ready');

  await loadDemoData(cfg.root, infra, log);

  const rows = STACK_SERVICES.map((s) => `  ${s.name.padEnd(18)} http://127.0.0.1:${s.port}/docs   /health/ready   /metrics`);
  console.log(`\nMobile World is up.\n${rows.join('\n')}\n`);
  if (infra['OIDC_ISSUER']) console.log(`${tokenHelp(cfg.root, infra['OIDC_ISSUER'])}\n`);
  console.log('Stop everything with: npm stop\n');
}

/** One curl per demo user (password grant against mobile-world-web) and one for the ops client. */
function tokenHelp(root: string, issuer: string): string {
  const endpoint = `${issuer}/protocol/openid-connect/token`;
  const users = realmDemoUsers(root).map(
    (u) =>
      `  ${u.username.padEnd(6)} ${u.roles.join(',').padEnd(16)} curl -s ${endpoint} -d grant_type=password -d client_id=mobile-world-web -d username=${u.username} -d password=${u.password ?? '<password>'}`,
  );
  const secret = realmClientSecret(root, 'mobile-world-ops') ?? '<secret>';
  return [
    `Tokens from Keycloak (issuer ${issuer}); pipe to jq -r .access_token and send as "authorization: Bearer <token>":`,
    ...users,
    `  ${'ops'.padEnd(6)} ${'operator'.padEnd(16)} curl -s ${endpoint} -d grant_type=client_credentials -d client_id=mobile-world-ops -d client_secret=${secret}`,
  ].join('\n');
}

main().catch((e: unknown) => {
  console.error(`[start] failed: ${(e as Error).message}`);
  process.exit(1);
});
