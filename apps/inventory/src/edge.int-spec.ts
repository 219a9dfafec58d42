import { endpointsOf, type EndpointSpec, PLATFORM_CONTROLLERS } from '@mw/platform';
import { committedApiDocument, DEMO_USERS, type DemoUser, waitFor } from '@mw/testing';
import { api } from './api';
import { authorizationOf, ifMatch, InventoryHarness, oid, restockKey, type Who } from './test/harness';

const WEB_ORIGIN = 'http://localhost:5173';

/**
 * The API edge of inventory (ADR 0007) on a real instance with real Keycloak tokens: who may call
 * what, 401/403/405, the served document, and the platform's security headers and CORS.
 */
describe('inventory API edge', () => {
  const h = new InventoryHarness();
  const product = oid(0xd3, 1);
  const order = oid(0xe3, 1);

  beforeAll(async () => {
    await h.start(1, { edge: { corsOrigins: [WEB_ORIGIN] } });
    expect((await h.http('POST', `/stock/${product}/MSK/restock`, { as: 'stan', headers: restockKey(), body: { qty: 1000, reason: 'delivery' } })).status).toBe(201);
    await h.send([{ type: 'ReserveStock', payload: { order_id: order, zone: 'MSK', lines: [{ product_id: product, qty: 1 }], hold_seconds: 3600 } }]);
    await waitFor(async () => h.eventsFor(order, 'StockReserved')[0], 30_000, 'the order reserved');
  }, 180_000);
  afterAll(() => h.stop());

  // Every operation of the service's document, with a request that succeeds for its roles.
  const declared = new Map(endpointsOf([...api.controllers, ...PLATFORM_CONTROLLERS]).map((e) => [e.operationId, e]));
  type Caller = DemoUser | 'service';
  interface Operation {
    readonly spec: EndpointSpec;
    readonly method: string;
    readonly path: string;
    readonly body?: unknown;
    /** Headers of a request that succeeds (fresh for each request). */
    readonly headers?: () => Record<string, string>;
    /** Who gets the declared success status; every other signed-in caller gets 403. */
    readonly allowed: readonly Caller[] | 'anyone';
  }
  const operation = (operationId: string, path: string, allowed: Operation['allowed'], body?: unknown, headers?: () => Record<string, string>): Operation => {
    const spec = declared.get(operationId);
    if (!spec) throw new Error(`no operation ${operationId}`);
    return { spec, method: spec.method, path, body, allowed, ...(headers ? { headers } : {}) };
  };
  const callers: readonly Caller[] = [...(Object.keys(DEMO_USERS) as DemoUser[]), 'service'];
  const operations: readonly Operation[] = [
    operation('productStock', `/stock/${product}`, 'anyone'),
    operation('availability', `/availability?zone=MSK&product_ids=${product}`, 'anyone'),
    operation('restock', `/stock/${product}/MSK/restock`, ['stan'], { qty: 1, reason: 'delivery' }, restockKey),
    operation('setStock', `/stock/${product}/SPB`, ['stan'], { available: 5, reason: 'stock-take' }, () => ifMatch(0)),
    operation('zoneStock', `/stock/${product}/MSK`, ['stan', 'otto', 'service']),
    operation('lowStock', '/low-stock?zone=SPB', ['stan', 'otto', 'service']),
    operation('ledgerHistory', `/ledger/${product}/MSK`, ['stan', 'otto', 'service']),
    operation('ledgerCheck', '/ledger/check', ['otto', 'service']),
    operation('reservation', `/reservations/${order}`, ['sue', 'stan', 'otto', 'service']),
    operation('metrics', '/metrics', ['otto', 'service']),
  ];
  const forbidden = (op: Operation): Caller[] => (op.allowed === 'anyone' ? [] : callers.filter((c) => !op.allowed.includes(c)));
  const protectedOps = operations.filter((op) => op.allowed !== 'anyone');

  describe('who may call what', () => {
    it('covers every declared operation', () => {
      expect(operations.map((op) => op.spec.operationId).sort()).toEqual([...declared.keys()].filter((id) => !['liveness', 'readiness'].includes(id)).sort());
    });

    it.each(operations.map((op) => [`${op.method} ${op.path}`, op] as const))('%s answers its documented success to its roles only', async (_n, op) => {
      const allowed = op.allowed === 'anyone' ? [...callers, undefined] : op.allowed;
      for (const who of allowed) {
        const res = await h.http(op.method, op.path, { as: who, body: op.body, headers: op.headers?.() ?? {} });
        expect({ who: who ?? 'nobody', status: res.status }).toEqual({ who: who ?? 'nobody', status: op.spec.response.status });
        // the answer is what the document says: valid, and nothing beyond (parsing drops undeclared fields)
        const parsed = op.spec.response.schema?.safeParse(res.body);
        expect(parsed?.error).toBeUndefined();
        expect(parsed?.data).toEqual(res.body);
      }
      for (const who of forbidden(op)) {
        const res = await h.http(op.method, op.path, { as: who, body: op.body });
        expect({ who, status: res.status, code: res.body['code'] }).toEqual({ who, status: 403, code: 'AUTH.FORBIDDEN' });
      }
    });

    it.each(protectedOps.map((op) => [`${op.method} ${op.path}`, op] as const))('%s is a 403 for customers (alice, bob)', async (_n, op) => {
      for (const who of ['alice', 'bob'] as const) {
        const res = await h.http(op.method, op.path, { as: who, body: op.body });
        expect({ who, status: res.status, code: res.body['code'] }).toEqual({ who, status: 403, code: 'AUTH.FORBIDDEN' });
      }
    });

    it.each(protectedOps.map((op) => [`${op.method} ${op.path}`, op] as const))('%s without a token is a 401 AUTH.UNAUTHENTICATED with a Bearer challenge', async (_n, op) => {
      const res = await h.http(op.method, op.path, { body: op.body });
      expect(res).toMatchObject({ status: 401, body: { code: 'AUTH.UNAUTHENTICATED', errors: [{ field: 'headers.authorization' }] } });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    });

    const tampered = async (): Promise<string> => {
      // stan's real token with the payload edited to claim the role operator: the signature no longer matches
      const [head, payload, signature] = (await authorizationOf('stan')).authorization!.slice('Bearer '.length).split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as { realm_access: { roles: string[] } };
      claims.realm_access.roles.push('operator');
      return `Bearer ${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    };
    it.each<[string, () => Promise<string>, string]>([
      ['a garbage token', async () => 'Bearer garbage', 'AUTH.MALFORMED_AUTHORIZATION'],
      ['Basic credentials', async () => `Basic ${Buffer.from('otto:demo').toString('base64')}`, 'AUTH.MALFORMED_AUTHORIZATION'],
      ['a JWT-shaped token that is not a token', async () => 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', 'AUTH.INVALID_TOKEN'],
      ['a real token with an edited payload', tampered, 'AUTH.INVALID_TOKEN'],
    ])('refuses %s with a 401 and its code, writing nothing', async (_n, header, code) => {
      const authorization = await header();
      const ledger = await h.http('GET', '/ledger/check', { as: { authorization } });
      expect(ledger).toMatchObject({ status: 401, body: { code } });
      const restock = await h.http('POST', `/stock/${oid(0xd3, 2)}/MSK/restock`, { as: { authorization }, body: { qty: 1, reason: 'x' } });
      expect(restock).toMatchObject({ status: 401, body: { code } });
      expect(await h.db.collection('stock').countDocuments({ product_id: oid(0xd3, 2) })).toBe(0);
    });
  });

  describe('methods and documents', () => {
    it.each([
      ['DELETE', `/stock/${product}/MSK`, 'GET, HEAD, PUT'],
      ['GET', `/stock/${product}/MSK/restock`, 'POST'],
      ['PATCH', `/stock/${product}/MSK/restock`, 'POST'],
      ['POST', `/stock/${product}`, 'GET, HEAD'],
      ['PUT', '/low-stock?zone=MSK', 'GET, HEAD'],
      ['POST', '/ledger/check', 'GET, HEAD'],
      ['DELETE', `/ledger/${product}/MSK`, 'GET, HEAD'],
      ['DELETE', `/reservations/${order}`, 'GET, HEAD'],
    ])('%s %s is a 405 allowing %s', async (method, path, allow) => {
      const res = await h.http(method, path, { as: 'stan' });
      expect(res).toMatchObject({ status: 405, body: { code: 'COMMON.METHOD_NOT_ALLOWED' } });
      expect(res.headers.get('allow')).toBe(allow);
    });

    it('an unknown path stays a 404', async () => {
      expect((await h.http('GET', `/stocks/${product}`, { as: 'stan' })).status).toBe(404);
    });

    it('serves the committed OpenAPI document (docs/api/inventory.openapi.json)', async () => {
      const served = (await (await fetch(`${h.urls[0]}/docs/openapi.json`)).json()) as unknown;
      const { committed, file } = committedApiDocument(api);
      expect({ file, served }).toEqual({ file, served: committed });
    });
  });

  describe('security headers and CORS (per service, from runService)', () => {
    const url = (path: string): string => `${h.urls[0]}${path}`;

    it('answers a preflight from an allowed origin, allowing Authorization', async () => {
      const res = await fetch(url(`/stock/${product}/MSK/restock`), {
        method: 'OPTIONS',
        headers: { origin: WEB_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(WEB_ORIGIN);
      expect(res.headers.get('access-control-allow-methods')?.split(',')).toContain('POST');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase().split(',')).toEqual(expect.arrayContaining(['authorization', 'content-type']));
    });

    it('lets a browser send the stock-write preconditions and read the ETag', async () => {
      const preflight = await fetch(url(`/stock/${product}/MSK`), {
        method: 'OPTIONS',
        headers: { origin: WEB_ORIGIN, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization,if-match,idempotency-key' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase().split(',')).toEqual(expect.arrayContaining(['if-match', 'idempotency-key']));
      const read = await fetch(url(`/stock/${product}/MSK`), { headers: { origin: WEB_ORIGIN, ...(await authorizationOf('stan')) } });
      expect(read.headers.get('etag')).toMatch(/^"\d+"$/);
      expect(read.headers.get('access-control-expose-headers')?.toLowerCase().split(',')).toContain('etag');
    });

    it('gives another origin no CORS grant', async () => {
      const preflight = await fetch(url(`/stock/${product}/MSK/restock`), {
        method: 'OPTIONS',
        headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      const read = await fetch(url(`/stock/${product}`), { headers: { origin: 'http://evil.example' } });
      expect(read.status).toBe(200);
      expect(read.headers.get('access-control-allow-origin')).toBeNull();
      const allowed = await fetch(url(`/stock/${product}`), { headers: { origin: WEB_ORIGIN } });
      expect(allowed.headers.get('access-control-allow-origin')).toBe(WEB_ORIGIN);
    });

    it.each<[string, string, Who, number]>([
      ['a JSON 200', `/stock/${product}`, undefined, 200],
      ['a 404 problem', `/reservations/${oid(0xe3, 99)}`, 'sue', 404],
      ['a 404 of an unknown path', '/nothing/here', undefined, 404],
      ['a 401 problem', '/ledger/check', undefined, 401],
    ])('puts the security headers on %s', async (_n, path, who, status) => {
      const res = await h.http('GET', path, { as: who });
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
      expect(res.headers.get('x-powered-by')).toBeNull();
    });

    it('serves Swagger UI at /docs without the API policy that would block it', async () => {
      const res = await fetch(url('/docs'));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('swagger-ui');
      expect(res.headers.get('content-security-policy') ?? '').not.toContain("default-src 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-powered-by')).toBeNull();
    });
  });
});
