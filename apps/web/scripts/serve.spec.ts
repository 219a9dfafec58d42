// @vitest-environment node
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webServer } from './serve';

/** The container's server (apps/web/Dockerfile) on a random local port, over a fake build. */
describe('the web app server of the container', () => {
  const root = mkdtempSync(join(tmpdir(), 'mw-web-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>app</title>');
  writeFileSync(join(root, 'assets', 'index-abc.js'), 'console.log(1)');
  writeFileSync(join(root, '..', 'secret.txt'), 'no');
  const server = webServer(root, {
    WEB_API_ORDERS: 'http://localhost:3004',
    OIDC_ISSUER: 'http://localhost:8080/realms/mobile-world',
  });
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('answers /config.json from the environment, uncached', async () => {
    const r = await fetch(`${base}/config.json`);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(await r.json()).toMatchObject({
      api: { orders: 'http://localhost:3004' },
      oidc: { issuer: 'http://localhost:8080/realms/mobile-world', clientId: 'mobile-world-web' },
    });
  });

  it('serves assets as immutable, the app for its routes, 404 for a missing asset or a path outside the build', async () => {
    const asset = await fetch(`${base}/assets/index-abc.js`);
    expect([asset.status, asset.headers.get('content-type'), asset.headers.get('cache-control')]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      'public, max-age=31536000, immutable',
    ]);
    const route = await fetch(`${base}/staff/kafka?x=1`);
    expect([route.status, await route.text()]).toEqual([200, '<!doctype html><title>app</title>']);
    expect((await fetch(`${base}/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${base}/..%2fsecret.txt`)).status).toBe(404);
    expect((await fetch(`${base}/config.json`, { method: 'POST' })).status).toBe(405);
  });
});
