/**
 * Prometheus as tools/infra runs it (Debian's binary, the generated configuration, the committed
 * alert rules), on its own port and INFRA_DIR, against the shared Keycloak:
 * - it scrapes a target that, like every service's /metrics, answers only a verified token with role
 *   operator — so a target "up" means Prometheus fetched and sent the operator's token itself;
 * - one real rule goes to firing and back: the target's `outbox_parked_documents` (the relay's gauge)
 *   is pushed over OutboxEntriesParked's threshold, then back to 0.
 * Short intervals (PROMETHEUS_SCRAPE_INTERVAL=1s) keep it to a few seconds.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Gauge, Registry } from 'prom-client';
import { bearerTokenOf, hasRole, TokenVerifier } from '@mw/platform';
import { uniqueName } from '@mw/testing';
import { loadConfig, type InfraConfig } from './config';
import { ensureInfra, stopInfra } from './index';
import { writeScrapeTargets } from './servers/prometheus';

jest.setTimeout(120_000);

let cfg: InfraConfig;
let prometheusUrl: string;
let target: Server;
let scrapes = { verified: 0, refused: 0 };
const registry = new Registry();
const parked = new Gauge({
  name: 'outbox_parked_documents',
  help: 'as the outbox relay reports it',
  registers: [registry],
});

/** An HTTP /metrics that accepts only a valid operator token of the realm, as the services' edge does. */
async function startTarget(issuer: string, audience: string): Promise<Server> {
  const verifier = new TokenVerifier({ issuer, audience, clockSkewSeconds: 5 });
  const server = createServer((req, res) => {
    void (async () => {
      const token = bearerTokenOf(req.headers.authorization);
      const caller = token ? await verifier.verify(token).catch(() => undefined) : undefined;
      if (req.url !== '/metrics' || !caller || !hasRole(caller, 'operator')) {
        scrapes.refused++;
        res.writeHead(caller ? 403 : 401).end();
        return;
      }
      scrapes.verified++;
      res.writeHead(200, { 'content-type': registry.contentType }).end(await registry.metrics());
    })();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return server;
}

interface ApiTarget {
  labels: Record<string, string>;
  health: string;
  lastError: string;
}
interface ApiAlert {
  labels: Record<string, string>;
  state: string;
}

async function api<T>(path: string): Promise<T> {
  const res = await fetch(`${prometheusUrl}${path}`, { signal: AbortSignal.timeout(5000) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: T }).data;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const parkedAlerts = async (): Promise<ApiAlert[]> =>
  (await api<{ alerts: ApiAlert[] }>('/api/v1/alerts')).alerts.filter(
    (a) => a.labels['alertname'] === 'OutboxEntriesParked',
  );

beforeAll(async () => {
  const shared = await ensureInfra({ servers: ['keycloak'], exportToProcessEnv: false });
  const issuer = shared['OIDC_ISSUER'] ?? '';
  target = await startTarget(issuer, shared['OIDC_AUDIENCE'] ?? '');
  cfg = loadConfig({
    ...process.env,
    INFRA: 'local',
    INFRA_DIR: join('.infra', uniqueName('prometheus-test')),
    PROMETHEUS_PORT: '24190',
    PROMETHEUS_SCRAPE_INTERVAL: '1s',
    KEYCLOAK_PORT: new URL(issuer).port,
  });
  const port = (target.address() as AddressInfo).port;
  writeScrapeTargets(cfg.infraDir, [{ job: 'inventory', address: `127.0.0.1:${port}` }]);
  const env = await ensureInfra({ config: cfg, servers: ['prometheus'], exportToProcessEnv: false });
  prometheusUrl = env['PROMETHEUS_URL'] ?? '';
});

afterAll(async () => {
  if (cfg) {
    await stopInfra(cfg, ['prometheus'], () => undefined);
    rmSync(cfg.infraDir, { recursive: true, force: true });
  }
  await new Promise((done) => target?.close(done));
});

describe('Prometheus (tools/infra, real binary, committed rules)', () => {
  it('scrapes its targets with the operator token: every target up, the rules loaded', async () => {
    const targets = await until('both targets up', async () => {
      const t = (await api<{ activeTargets: ApiTarget[] }>('/api/v1/targets')).activeTargets;
      return t.length === 2 && t.every((x) => x.health === 'up') ? t : undefined;
    });
    expect(targets.map((t) => t.labels['job']).sort()).toEqual(['inventory', 'prometheus']);
    expect(scrapes.verified).toBeGreaterThan(0);
    const groups = (await api<{ groups: { rules: { name: string }[] }[] }>('/api/v1/rules')).groups;
    expect(groups.flatMap((g) => g.rules.map((r) => r.name))).toEqual(
      expect.arrayContaining([
        'OutboxEntriesParked',
        'KafkaConsumerLag',
        'HotCategory',
        'OrdersPastSagaDeadline',
      ]),
    );
  });

  it('the target refuses a scrape without the operator token, so "up" above means Prometheus sent one', async () => {
    scrapes = { verified: 0, refused: 0 };
    const bare = await fetch(`http://127.0.0.1:${(target.address() as AddressInfo).port}/metrics`);
    expect(bare.status).toBe(401);
    expect(scrapes.refused).toBe(1);
  });

  it('OutboxEntriesParked fires when a service reports a parked outbox and resolves when it is cleared', async () => {
    expect(await parkedAlerts()).toEqual([]);
    parked.set(2);
    const firing = await until('OutboxEntriesParked firing', async () => {
      const a = await parkedAlerts();
      return a.some((x) => x.state === 'firing') ? a : undefined;
    });
    expect(firing.map((a) => a.labels)).toEqual([
      { alertname: 'OutboxEntriesParked', job: 'inventory', severity: 'critical' },
    ]);
    parked.set(0);
    await until('OutboxEntriesParked resolved', async () =>
      (await parkedAlerts()).length === 0 ? true : undefined,
    );
  });
});
