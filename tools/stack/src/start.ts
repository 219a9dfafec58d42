/**
 * `npm start`: the whole system on this machine, from nothing.
 *  1. infrastructure (Kafka, Cassandra, MongoDB server, Keycloak, Prometheus, Zipkin) via tools/infra — installs
 *     what it needs; Prometheus scrapes the services of this stack (their ports written first);
 *  2. builds the service bundles with Nx;
 *  3. starts the services' supervisor (stack.ts, supervisor.ts), which runs every service and
 *     restarts one that exits (logs under .infra/services/<name>/);
 *  4. waits until each answers /health/ready;
 *  5. loads the demo data once;
 *  6. prints the web app's URL first (apps/web, served on 4400 + STACK_PORT_OFFSET unless STACK_WEB=0),
 *     then the services', Prometheus's and Zipkin's, and one curl per demo user for a token.
 * Running it again is safe: when this checkout's supervisor is alive nothing is started twice —
 * a service alive but not ready (e.g. its broker is back only now) is reported and waited for.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import {
  defaultServers,
  ensureInfra,
  loadConfig,
  realmClientSecret,
  realmDemoUsers,
  writeScrapeTargets,
} from '@mw/infra';
import { allowWebOrigin } from '@mw/testing';
import { scrapeTargets, servicePort, stackSettings, WEB_APP, webOrigins, webPort } from './services';
import { stackLayout, startServices } from './stack';
import { loadDemoData } from './demo-data';

const log = (m: string): void => console.log(`[start] ${m}`);

async function main(): Promise<void> {
  const settings = stackSettings();
  const cfg = loadConfig();
  log(`infrastructure (INFRA=${cfg.mode})`);
  writeScrapeTargets(cfg.infraDir, scrapeTargets(settings));
  const infra = await ensureInfra({ servers: defaultServers(cfg) });

  if (settings.build) {
    log('building service bundles');
    execFileSync(
      join(cfg.root, 'node_modules/.bin/nx'),
      [
        'run-many',
        '-t',
        'build',
        'build-projector',
        `--projects=catalog,inventory,carts,orders${settings.web ? ',web' : ''}`,
        '--parallel=2',
      ],
      {
        cwd: cfg.root,
        stdio: 'inherit',
        env: { ...process.env, NX_DAEMON: 'false' },
      },
    );
  }

  if (settings.web && infra['OIDC_ISSUER']) {
    // Keycloak's token endpoint answers the app's browser calls (CORS) only from a web origin of the client;
    // the realm file lists the default port's, another port (STACK_PORT_OFFSET) is added to the running Keycloak
    for (const origin of webOrigins(settings)) await allowWebOrigin(origin);
  }

  await startServices({ layout: stackLayout(cfg.root, cfg.infraDir), settings, infra, log });
  log('all services ready');
  const webUrl = `http://127.0.0.1:${webPort(settings)}`;
  if (settings.web) await waitWebApp(webUrl);

  if (settings.demoData) await loadDemoData(cfg.root, cfg.infraDir, settings.portOffset, infra, log);

  const rows = settings.services.map(
    (s) =>
      `  ${s.name.padEnd(18)} http://127.0.0.1:${servicePort(s, settings)}/docs   /health/ready   /metrics`,
  );
  const web = settings.web
    ? `\nWeb app: ${webUrl}   (README: Web app — sign in as alice / demo; staff: carol, stan, sue, otto)\n`
    : '';
  console.log(`${web}\nMobile World is up.\n${rows.join('\n')}\n`);
  const prometheus = infra['PROMETHEUS_URL'];
  if (prometheus)
    console.log(
      `Prometheus ${prometheus} — ${prometheus}/targets, ${prometheus}/alerts (README: Metrics and alerts)\n`,
    );
  const zipkin = infra['ZIPKIN_URL'];
  if (zipkin)
    console.log(
      `Zipkin ${zipkin} — every checkout is one trace; find it by its order's traceparent (README: Traces)\n`,
    );
  if (infra['OIDC_ISSUER']) console.log(`${tokenHelp(cfg.root, infra['OIDC_ISSUER'])}\n`);
  console.log('Status (pid, uptime, restarts, readiness): npm run status\nStop everything with: npm stop\n');
}

/** The web app answers once `vite preview` serves its runtime config. */
async function waitWebApp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(`${url}/config.json`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(
    `${WEB_APP.name} not answering on ${url} after ${timeoutMs / 1000}s; see .infra/services/web/server.log`,
  );
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
