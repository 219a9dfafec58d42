/**
 * The API edge of a real service process (runService: express, the guard, CORS, health) on a local
 * port, with real tokens of the project's Keycloak: trust proxy and per-address keys, the read and
 * guest-session buckets, the bounded limiter table, the CORS preflight and readiness.
 */
import { Controller, Module } from '@nestjs/common';
import type { INestApplication } from '@nestjs/common';
import { z } from 'zod';
import { PlatformModule } from '../bootstrap/platform.module';
import { runService } from '../bootstrap/run-service';
import { HealthRegistry, READINESS_CACHE_MS } from '../health/health';
import { createLogger } from '../logging/logger';
import { access } from './access';
import type { EdgeSettings } from './edge-settings';
import { Endpoint, endpoint } from './endpoint';

const issuer = (process.env['OIDC_ISSUER'] ?? '').replace(/\/+$/, '');

async function tokenOf(fields: Record<string, string>): Promise<string> {
  const r = await fetch(`${issuer}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  const body = (await r.json()) as { access_token?: string };
  if (!r.ok || !body.access_token) throw new Error(`token: ${r.status} ${JSON.stringify(body)}`);
  return body.access_token;
}
const userToken = (username: string) =>
  tokenOf({ grant_type: 'password', client_id: 'mobile-world-web', username, password: 'demo' });
const operatorToken = () =>
  tokenOf({
    grant_type: 'client_credentials',
    client_id: 'mobile-world-ops',
    client_secret: 'mobile-world-ops-dev-secret',
  });

const spec = {
  write: endpoint({
    operationId: 'writeThing',
    method: 'POST',
    path: '/things',
    tag: 't',
    summary: 'a public write',
    access: access.public,
    response: { status: 204, description: 'ok' },
  }),
  list: endpoint({
    operationId: 'listThings',
    method: 'GET',
    path: '/things',
    tag: 't',
    summary: 'an expensive paged read',
    access: access.anyUser,
    rateLimit: 'reads',
    response: { status: 200, description: 'ok', schema: z.object({ ok: z.boolean() }) },
  }),
  issue: endpoint({
    operationId: 'issueSession',
    method: 'POST',
    path: '/sessions',
    tag: 't',
    summary: 'issues an anonymous identity',
    access: access.public,
    rateLimit: 'guest-sessions',
    response: { status: 204, description: 'ok' },
  }),
};

@Controller()
class ThingsController {
  @Endpoint(spec.write)
  write(): void {
    // 204: the edge's answer is what is under test
  }
  @Endpoint(spec.list)
  list(): { ok: boolean } {
    return { ok: true };
  }
  @Endpoint(spec.issue)
  issue(): void {
    // 204: the edge's answer is what is under test
  }
}

@Module({ controllers: [ThingsController] })
class ThingsModule {}

const base: EdgeSettings = {
  oidc: { issuer, audience: 'mobile-world-api', clockSkewSeconds: 30 },
  corsOrigins: ['http://shop.example'],
  rateLimitWritesPerMinute: 2,
  rateLimitReadsPerMinute: 3,
  rateLimitGuestSessionsPerHour: 2,
  rateLimitMaxKeys: 1000,
  trustProxy: false,
};

async function start(edge: Partial<EdgeSettings>): Promise<{ app: INestApplication; url: string }> {
  const logger = createLogger('edge-test', 'silent');
  const app = await runService({
    name: 'edge-test',
    description: 'edge under test',
    rootModule: { module: ThingsModule, imports: [PlatformModule.forRoot(logger)] },
    logger,
    http: { port: 0, host: '127.0.0.1', bodyLimit: '16kb' },
    shutdownTimeoutMs: 2000,
    edge: {
      api: { name: 'edge-test', title: 't', description: 't', version: '1', controllers: [ThingsController] },
      settings: { ...base, ...edge },
    },
  });
  return { app, url: `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}` };
}

const post = (url: string, headers: Record<string, string> = {}) => fetch(url, { method: 'POST', headers });

describe('API edge of a running service', () => {
  const apps: INestApplication[] = [];
  const started = async (edge: Partial<EdgeSettings>) => {
    const s = await start(edge);
    apps.push(s.app);
    return s.url;
  };

  beforeAll(() => {
    if (!issuer) throw new Error('OIDC_ISSUER missing: run with the infra environment (npm run infra:env)');
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('TRUST_PROXY false: X-Forwarded-For is ignored, every caller through this socket address shares one bucket', async () => {
    const url = await started({ trustProxy: false });
    const statuses = [];
    for (const xff of ['203.0.113.1', '203.0.113.2', '203.0.113.3'])
      statuses.push((await post(`${url}/things`, { 'x-forwarded-for': xff })).status);
    expect(statuses).toEqual([204, 204, 429]);
  });

  it('TRUST_PROXY 1: each client named by the proxy has its own bucket; IPv6 clients are keyed by their /64', async () => {
    const url = await started({ trustProxy: 1 });
    const as = (xff: string) => post(`${url}/things`, { 'x-forwarded-for': xff }).then((r) => r.status);
    expect([await as('203.0.113.1'), await as('203.0.113.1'), await as('203.0.113.1')]).toEqual([
      204, 204, 429,
    ]);
    expect(await as('203.0.113.2')).toBe(204);
    // a spoofed left-most entry does not help: the proxy appends the real client, and only one hop is trusted
    expect(await as('198.51.100.7, 203.0.113.1')).toBe(429);
    // rotating inside one /64 stays in one bucket; the next /64 is another subscriber
    expect([
      await as('2001:db8:1:2::1'),
      await as('2001:db8:1:2:ffff::9'),
      await as('2001:db8:1:2:abcd::1'),
    ]).toEqual([204, 204, 429]);
    expect(await as('2001:db8:1:3::1')).toBe(204);
    // an IPv4-mapped IPv6 address is the IPv4 client
    expect(await as('::ffff:203.0.113.1')).toBe(429);
  });

  it('expensive reads take from a read bucket per caller: 429 COMMON.RATE_LIMITED with Retry-After', async () => {
    const url = await started({});
    const alice = { authorization: `Bearer ${await userToken('alice')}` };
    const bob = { authorization: `Bearer ${await userToken('bob')}` };
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${url}/things`, { headers: alice })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await fetch(`${url}/things`, { headers: alice });
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await refused.json()).toMatchObject({ code: 'COMMON.RATE_LIMITED' });
    expect((await fetch(`${url}/things`, { headers: bob })).status).toBe(200);
    // liveness is not an expensive read
    for (let i = 0; i < 5; i++) expect((await fetch(`${url}/health`)).status).toBe(200);
  });

  it('guest-session issuance is limited per address, whoever asks (a token does not open a new bucket)', async () => {
    const url = await started({ rateLimitWritesPerMinute: 100 }); // its own bucket, far below the writes'
    const alice = { authorization: `Bearer ${await userToken('alice')}` };
    const statuses = [
      (await post(`${url}/sessions`)).status,
      (await post(`${url}/sessions`, alice)).status,
      (await post(`${url}/sessions`)).status,
    ];
    expect(statuses).toEqual([204, 204, 429]);
    const refused = await post(`${url}/sessions`, alice);
    expect(refused.status).toBe(429);
    expect((await refused.json()) as { message: string }).toMatchObject({
      message: expect.stringMatching(/guest sessions/),
    });
  });

  it('a full limiter table refuses a new caller with 503 COMMON.OVERLOADED and keeps the throttled ones throttled', async () => {
    const url = await started({ trustProxy: 1, rateLimitMaxKeys: 100, rateLimitWritesPerMinute: 1 });
    const as = (xff: string) => post(`${url}/things`, { 'x-forwarded-for': xff });
    expect((await as('192.0.2.1')).status).toBe(204);
    expect((await as('192.0.2.1')).status).toBe(429);
    for (let i = 2; i <= 100; i++) await as(`198.51.100.${i}`);
    const fresh = await as('203.0.113.200');
    expect(fresh.status).toBe(503);
    expect(fresh.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await fresh.json()).toMatchObject({ code: 'COMMON.OVERLOADED' });
    // the flood of new keys did not push the throttled caller out of the table
    expect((await as('192.0.2.1')).status).toBe(429);
  });

  it('CORS preflight allows the headers a browser checkout sends (Idempotency-Key, X-Guest-Session)', async () => {
    const url = await started({});
    const r = await fetch(`${url}/things`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers':
          'authorization, content-type, idempotency-key, x-guest-session, if-match',
      },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('http://shop.example');
    const allowed = (r.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    expect(allowed).toEqual(
      expect.arrayContaining([
        'authorization',
        'content-type',
        'idempotency-key',
        'x-guest-session',
        'if-match',
      ]),
    );
  });

  it('readiness: up/down only for anyone, details for an operator, checks run at most once per cache period', async () => {
    const s = await start({});
    apps.push(s.app);
    let runs = 0;
    s.app.get(HealthRegistry).register({
      name: 'db',
      check: async () => {
        runs++;
        throw new Error('connect ECONNREFUSED db-secret-host.internal:27017 (replica set rs0)');
      },
    });
    const anonymous = await fetch(`${s.url}/health/ready`);
    expect(anonymous.status).toBe(503);
    const publicBody = await anonymous.text();
    expect(JSON.parse(publicBody)).toEqual({ status: 'not_ready' });
    expect(publicBody).not.toMatch(/db-secret-host|rs0/);
    const ops = { authorization: `Bearer ${await operatorToken()}` };
    const detailed = (await (await fetch(`${s.url}/health/ready`, { headers: ops })).json()) as {
      checks: Record<string, { error?: string }>;
    };
    expect(detailed.checks['db']?.error).toMatch(/db-secret-host/);
    // a customer is not an operator
    const alice = { authorization: `Bearer ${await userToken('alice')}` };
    expect(await (await fetch(`${s.url}/health/ready`, { headers: alice })).json()).toEqual({
      status: 'not_ready',
    });
    // a bad token is refused rather than ignored
    expect(
      (await fetch(`${s.url}/health/ready`, { headers: { authorization: 'Bearer a.b.c' } })).status,
    ).toBe(401);
    const before = runs;
    await Promise.all(Array.from({ length: 20 }, () => fetch(`${s.url}/health/ready`)));
    expect(runs - before).toBeLessThanOrEqual(1);
    await new Promise((r) => setTimeout(r, READINESS_CACHE_MS + 100));
    await fetch(`${s.url}/health/ready`);
    expect(runs).toBeGreaterThan(before);
  });
});
