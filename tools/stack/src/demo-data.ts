import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kafkaEnvAs } from './services';

/**
 * Loads the demo catalog (3-level Russian category tree, ≥ 2,000 products) and stock for the
 * newest 100 products in every zone, once: a marker under .infra records that it was loaded. The seed itself is
 * idempotent too, so a lost marker only costs time. Then the demo orders (loadDemoOrders), once.
 */
export async function loadDemoData(
  root: string,
  infraDir: string,
  portOffset: number,
  infra: Readonly<Record<string, string>>,
  log: (m: string) => void,
): Promise<void> {
  const catalogUrl = `http://127.0.0.1:${3001 + portOffset}`;
  const inventoryUrl = `http://127.0.0.1:${3002 + portOffset}`;
  const marker = join(infraDir, 'services', 'demo-data.loaded');
  if (existsSync(marker)) {
    log('demo data already loaded');
  } else {
    log('loading demo data (categories, products, stock)');
    execFileSync(
      process.execPath,
      [
        require.resolve('tsx/cli'),
        '--tsconfig',
        'tsconfig.base.json',
        'apps/catalog/scripts/seed.ts',
        '--no-wait',
      ],
      {
        cwd: root,
        stdio: 'inherit',
        env: { ...process.env, ...infra, ...kafkaEnvAs('catalog', infra), CATALOG_URL: catalogUrl, INVENTORY_URL: inventoryUrl },
      },
    );
    await stockDemoProducts(infra, catalogUrl, inventoryUrl, log);
    mkdirSync(join(infraDir, 'services'), { recursive: true });
    writeFileSync(marker, new Date().toISOString());
  }
  loadDemoOrders(root, infraDir, catalogUrl, infra, log);
}

/**
 * ~300 historic orders of alice and bob (last ~60 days, every zone) for the sales analytics, once,
 * with a marker of their own (a stack that loaded the catalogue before gets them too). The script
 * writes them with their events in the orders outbox: the running orders service publishes and
 * counts them. Its ids are fixed, so a lost marker only costs time.
 */
function loadDemoOrders(
  root: string,
  infraDir: string,
  catalogUrl: string,
  infra: Readonly<Record<string, string>>,
  log: (m: string) => void,
): void {
  const marker = join(infraDir, 'services', 'demo-orders.loaded');
  if (existsSync(marker)) {
    log('demo orders already loaded');
    return;
  }
  log('loading demo orders (historic orders for the sales analytics)');
  execFileSync(
    process.execPath,
    [require.resolve('tsx/cli'), '--tsconfig', 'tsconfig.base.json', 'apps/orders/scripts/demo-orders.ts'],
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, ...infra, ...kafkaEnvAs('orders', infra), CATALOG_URL: catalogUrl },
    },
  );
  mkdirSync(join(infraDir, 'services'), { recursive: true });
  writeFileSync(marker, new Date().toISOString());
}

const ZONES = ['MSK', 'SPB', 'EKB'] as const;

/** An access token of the demo stock manager (password grant; restocking needs role stock_manager). */
async function stockManagerToken(infra: Readonly<Record<string, string>>): Promise<string> {
  const issuer = infra['OIDC_ISSUER'] ?? 'http://127.0.0.1:18080/realms/mobile-world';
  const r = await fetchRetry(`${issuer}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'password',
      client_id: 'mobile-world-web',
      username: 'stan',
      password: 'demo',
    }),
  });
  if (!r.ok) throw new Error(`token for stan refused: HTTP ${r.status} ${await r.text()}`);
  return ((await r.json()) as { access_token: string }).access_token;
}

/** Puts the newest 100 demo products in stock in every zone, through the inventory API, as stan. */
async function stockDemoProducts(
  infra: Readonly<Record<string, string>>,
  catalogUrl: string,
  inventoryUrl: string,
  log: (m: string) => void,
): Promise<void> {
  const token = await stockManagerToken(infra);
  const res = await fetchRetry(`${catalogUrl}/products?sort=newest&limit=100`);
  if (!res.ok) throw new Error(`catalog search failed: HTTP ${res.status}`);
  const { items } = (await res.json()) as { items: { id: string }[] };
  let n = 0;
  for (const [i, p] of items.entries()) {
    for (const zone of ZONES) {
      const qty = 5 + ((i * 7 + zone.length * 13) % 60);
      const r = await fetchRetry(`${inventoryUrl}/stock/${p.id}/${zone}/restock`, {
        method: 'POST',
        // One key per product and zone: a retried request (fetchRetry) or a second load adds nothing.
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': `demo-${p.id}-${zone}` },
        body: JSON.stringify({ qty, reason: 'demo data' }),
      });
      if (!r.ok) throw new Error(`restock ${p.id}/${zone} failed: HTTP ${r.status} ${await r.text()}`);
      n++;
    }
  }
  log(`stocked ${items.length} products in ${ZONES.join(', ')} (${n} restocks)`);
}

/** A busy single-node dev stack can drop a connection now and then: retry briefly, then say why. */
async function fetchRetry(url: string, init?: RequestInit, attempts = 5): Promise<Response> {
  for (let i = 1; ; i++) {
    try {
      return await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      if (i >= attempts) throw new Error(`${url}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
      await new Promise((r) => setTimeout(r, 1000 * i));
    }
  }
}
