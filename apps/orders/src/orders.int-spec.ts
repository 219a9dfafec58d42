import { accessToken, committedApiDocument, DEMO_USERS, uniqueName, waitFor } from '@mw/testing';
import { api } from './api';
import { bearer, OrdersHarness, serviceBearer } from './test/harness';

interface Problem {
  code: string;
  message: string;
  errors: { field: string; message: string }[];
  correlation_id?: string;
}
interface HistoryPage {
  items: { id: string; status: string; state: string }[];
  next_cursor: string | null;
}

const { alice, bob } = DEMO_USERS;
/** An order id nobody has. */
const MISSING = '65f000000000000000000099';

/** A 404 body with the addressed id blanked out: what a caller learns from it. */
const learned = (body: Problem, id: string) => ({ code: body.code, message: body.message.replace(id, '<id>'), errors: body.errors });

/**
 * The orders HTTP API and service lifecycle: real Kafka, real MongoDB, private topics, HTTP on a
 * random port, real access tokens of the project's Keycloak (alice and bob customers, carol
 * catalog manager, sue support, otto operator, the ops client).
 */
describe('orders service (real Kafka + MongoDB + Keycloak tokens)', () => {
  const h = new OrdersHarness({ ORDER_HISTORY_READ_PREFERENCE: 'primary' }); // read-your-writes; secondaries: query-shapes.int-spec
  const user = uniqueName('user');
  /** One order of alice's and one of bob's, waiting for stock. */
  let aliceOrder: string;
  let bobOrder: string;

  beforeAll(async () => {
    await h.start(1);
    const a = h.checkout({ user_id: alice.id });
    const b = h.checkout({ user_id: bob.id });
    await h.sendCheckout(a);
    await h.sendCheckout(b);
    aliceOrder = (await h.waitState(a.order_id, 'AWAITING_STOCK')).id;
    bobOrder = (await h.waitState(b.order_id, 'AWAITING_STOCK')).id;
  }, 120_000);
  afterAll(() => h.stop());

  it('/metrics (operator) carries what the alert rules read: consumer lag of its groups, overdue sagas, mongod per member, readiness', async () => {
    const res = await fetch(`${h.urls[0]}/metrics`, { headers: await serviceBearer() });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('# TYPE orders_saga_overdue gauge');
    expect(text).toMatch(/^orders_created_total\{zone="[A-Z]+"\} [1-9]\d*$/m);
    expect(text).toMatch(new RegExp(`^kafka_consumer_group_lag\\{group="${h.config.KAFKA_GROUP_ID}",topic="${h.config.ORDERS_CHECKOUT_TOPIC}",partition="\\d+"\\} \\d+$`, 'm'));
    expect(text).toMatch(/^kafka_topic_partition_end_offset\{topic="[^"]+",partition="\d+"\} \d+$/m);
    expect(text).toMatch(/^mongodb_replset_member_health\{member="[^"]+"\} 1$/m);
    expect(text).toMatch(/^mongodb_opcounters_total\{member="[^"]+",type="insert"\} \d+$/m);
    expect(text).toMatch(/^service_readiness_check_up\{check="mongodb"\} 1$/m);
    expect(text).toMatch(/^service_readiness_check_up\{check="kafka"\} 1$/m);
  });

  it('creates exactly one order per checkout (delivered three times) and serves it with its saga state', async () => {
    const c = h.checkout({ user_id: user });
    await h.sendCheckout(c, 3);
    await h.waitSeen(c.order_id, 'OrderCreated');
    const order = await h.waitState(c.order_id, 'AWAITING_STOCK');
    expect(order).toMatchObject({ status: 'pending', reason: null, totals: { total: '39998.00' }, history: [], version: 1 });
    await new Promise((r) => setTimeout(r, 1000));
    expect(h.for(c.order_id, 'OrderCreated')).toHaveLength(1);
    expect(h.for(c.order_id, 'OrderCreated')[0]).toMatchObject({ key: user, correlation_id: `saga-${c.checkout_id}` });
  });

  it('a customer reads their own order; support, operator and the ops client read anybody’s', async () => {
    for (const headers of [await bearer('alice'), await bearer('sue'), await bearer('otto'), await serviceBearer()]) {
      const r = await h.call<{ id: string; user_id: string }>(`/orders/${aliceOrder}`, headers);
      expect({ status: r.status, id: r.body.id, user_id: r.body.user_id }).toEqual({ status: 200, id: aliceOrder, user_id: alice.id });
    }
    // an upper-case id addresses the same order
    expect((await h.call(`/orders/${aliceOrder.toUpperCase()}`, await bearer('alice'))).status).toBe(200);
  });

  it("somebody else's order answers exactly like an id that does not exist (404, never 403)", async () => {
    const missing = await h.call<Problem>(`/orders/${MISSING}`, await bearer('bob'));
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('ORDERS.ORDER_NOT_FOUND');
    const cases: Array<[string, 'alice' | 'bob' | 'carol' | 'stan']> = [
      [aliceOrder, 'bob'],
      [bobOrder, 'alice'],
      [aliceOrder, 'carol'], // catalog_manager: no customer of this order, no support role
      [aliceOrder, 'stan'],
    ];
    for (const [id, who] of cases) {
      const r = await h.call<Problem>(`/orders/${id}`, await bearer(who));
      expect({ who, status: r.status, body: learned(r.body, id) }).toEqual({ who, status: 404, body: learned(missing.body, MISSING) });
    }
  });

  it('a customer lists their own orders: the user is the token subject', async () => {
    const mine = await h.call<HistoryPage>('/orders', await bearer('alice'));
    expect(mine.status).toBe(200);
    const ids = mine.body.items.map((o) => o.id);
    expect(ids).toContain(aliceOrder);
    expect(ids).not.toContain(bobOrder);
    const owners = await h.db.collection<{ _id: string; user_id: string }>('orders').find({ _id: { $in: ids } }).toArray();
    expect(new Set(owners.map((o) => o.user_id))).toEqual(new Set([alice.id]));
    expect((await h.call<HistoryPage>('/orders', await bearer('bob'))).body.items.map((o) => o.id)).toEqual([bobOrder]);
  });

  it('a customer naming a user (anybody, even themself) is refused with 403 AUTH.FORBIDDEN; carol may not list orders', async () => {
    for (const named of [bob.id, alice.id]) {
      const r = await h.call<Problem>(`/orders?user_id=${named}`, await bearer('alice'));
      expect({ status: r.status, code: r.body.code, fields: r.body.errors.map((e) => e.field) }).toEqual({
        status: 403,
        code: 'AUTH.FORBIDDEN',
        fields: ['query.user_id'],
      });
      expect(JSON.stringify(r.body)).not.toContain(bobOrder);
    }
    const carol = await h.call<Problem>('/orders', await bearer('carol'));
    expect({ status: carol.status, code: carol.body.code }).toEqual({ status: 403, code: 'AUTH.FORBIDDEN' });
  });

  it("support and operator list anybody's orders with user_id", async () => {
    const bySue = await h.call<HistoryPage>(`/orders?user_id=${alice.id}`, await bearer('sue'));
    expect(bySue.status).toBe(200);
    expect(bySue.body.items.map((o) => o.id)).toContain(aliceOrder);
    expect(bySue.body.items.map((o) => o.id)).not.toContain(bobOrder);
    const byOtto = await h.call<HistoryPage>(`/orders?user_id=${bob.id}`, await bearer('otto'));
    expect(byOtto.body.items.map((o) => o.id)).toEqual([bobOrder]);
    const byOps = await h.call<HistoryPage>(`/orders?user_id=${bob.id}`, await serviceBearer());
    expect(byOps.body.items.map((o) => o.id)).toEqual([bobOrder]);
    // without user_id: their own orders (none)
    expect((await h.call<HistoryPage>('/orders', await bearer('sue'))).body).toEqual({ items: [], next_cursor: null });
  });

  it('pages a customer history newest first, every order once; the last page is exact (no cursor)', async () => {
    for (let i = 0; i < 3; i++) {
      const c = h.checkout({ user_id: alice.id });
      await h.sendCheckout(c);
      await h.waitState(c.order_id, 'AWAITING_STOCK');
    }
    const expected = (
      await h.db.collection<{ _id: string }>('orders').find({ user_id: alice.id }, { projection: { _id: 1 } }).sort({ order_date: -1, _id: -1 }).toArray()
    ).map((o) => o._id);
    expect(expected.length).toBeGreaterThanOrEqual(4);
    const asAlice = await bearer('alice');
    const pages: HistoryPage[] = [];
    let cursor: string | null = null;
    do {
      const r: { status: number; body: HistoryPage } = await h.call<HistoryPage>(`/orders?limit=2${cursor ? `&cursor=${cursor}` : ''}`, asAlice);
      expect(r.status).toBe(200);
      pages.push(r.body);
      cursor = r.body.next_cursor;
    } while (cursor && pages.length < 10);
    expect(pages.flatMap((p) => p.items.map((o) => o.id))).toEqual(expected);
    expect(pages.slice(0, -1).every((p) => p.items.length === 2)).toBe(true);
    expect(pages[pages.length - 1]?.items.length).toBeGreaterThan(0);
  });

  it('refuses a request without a valid token with 401 AUTH.* and a Bearer challenge', async () => {
    const real = await accessToken('alice');
    const [head, payload] = real.split('.');
    // bob's claims under alice's signature: the signature no longer matches
    const forged = `${head}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: bob.id })).toString('base64url')}.${real.split('.')[2]}`;
    const cases: Array<[Record<string, string>, string]> = [
      [{}, 'AUTH.UNAUTHENTICATED'],
      [{ authorization: 'Bearer garbage' }, 'AUTH.MALFORMED_AUTHORIZATION'],
      [{ authorization: 'Basic YWxpY2U6ZGVtbw==' }, 'AUTH.MALFORMED_AUTHORIZATION'],
      [{ authorization: 'Bearer aaaa.bbbb.cccc' }, 'AUTH.INVALID_TOKEN'],
      [{ authorization: `Bearer ${forged}` }, 'AUTH.INVALID_TOKEN'],
    ];
    for (const path of [`/orders/${aliceOrder}`, '/orders', `/orders?user_id=${alice.id}`]) {
      for (const [headers, code] of cases) {
        const r = await h.call<Problem>(path, headers);
        expect({ path, code, status: r.status, got: r.body.code, challenge: r.headers.get('www-authenticate')?.startsWith('Bearer') }).toEqual({
          path,
          code,
          status: 401,
          got: code,
          challenge: true,
        });
      }
    }
  });

  it('answers bad HTTP input with 400 and a JSON body naming the field', async () => {
    const asAlice = await bearer('alice');
    const asSue = await bearer('sue');
    const cases: Array<[string, Record<string, string>, string]> = [
      ['/orders/not-an-id', asAlice, 'params.id'],
      ['/orders/65f00000000000000000009', asAlice, 'params.id'], // 23 characters
      ['/orders?limit=0', asAlice, 'query.limit'],
      ['/orders?limit=abc', asAlice, 'query.limit'],
      ['/orders?limit=101', asSue, 'query.limit'],
      ['/orders?cursor=not*a*cursor', asAlice, 'query.cursor'],
      ['/orders?cursor=1795196528311-2080B7BBFD2B207DCBE80BB1', asAlice, 'query.cursor'], // upper-case id: not a cursor orders wrote
      ['/orders?user_id=a%20b', asSue, 'query.user_id'],
      ['/orders?user_id=u-1&user_id=u-2', asSue, 'query.user_id'],
    ];
    for (const [path, headers, field] of cases) {
      const r = await h.call<Problem>(path, headers);
      expect({ path, status: r.status, code: r.body.code, fields: r.body.errors.map((e) => e.field) }).toEqual({
        path,
        status: 400,
        code: 'COMMON.VALIDATION_FAILED',
        fields: [field],
      });
    }
    // operator injection and unknown parameters: refused, the offending parameter named
    for (const [path, headers, name] of [
      ['/orders?user_id[$ne]=x', asSue, 'user_id[$ne]'],
      ['/orders?user_id[$gt]=', asAlice, 'user_id[$gt]'],
      ['/orders?$where=1', asAlice, '$where'],
    ] as const) {
      const r = await h.call<Problem>(path, headers);
      expect({ path, status: r.status, code: r.body.code }).toEqual({ path, status: 400, code: 'COMMON.VALIDATION_FAILED' });
      expect(r.body.errors.some((e) => e.field.startsWith('query') && `${e.field} ${e.message}`.includes(name))).toBe(true);
    }
  });

  it('answers an undeclared method on a declared path with 405 and Allow; an unknown path with 404', async () => {
    const asSue = await bearer('sue');
    for (const [method, path] of [
      ['POST', `/orders/${aliceOrder}`],
      ['DELETE', `/orders/${aliceOrder}`],
      ['PUT', '/orders'],
      ['POST', '/orders'],
    ] as const) {
      const r = await h.call<Problem>(path, asSue, { method });
      expect({ method, path, status: r.status, allow: r.headers.get('allow'), code: r.body.code }).toEqual({
        method,
        path,
        status: 405,
        allow: 'GET, HEAD',
        code: 'COMMON.METHOD_NOT_ALLOWED',
      });
    }
    expect((await h.call(`/orders/${aliceOrder}/items`, asSue)).status).toBe(404);
    // nothing was changed by the refused methods
    expect((await h.order(aliceOrder)).body).toMatchObject({ id: aliceOrder, version: 1 });
  });

  it('serves readiness, metrics (operator) and the committed OpenAPI document', async () => {
    // anyone learns up/down only; the checks' details are for operators (ADR 0007)
    const publicReady = await fetch(`${h.urls[0]}/health/ready`);
    expect(publicReady.status).toBe(200);
    expect(await publicReady.json()).toEqual({ status: 'ready' });
    const ready = await fetch(`${h.urls[0]}/health/ready`, { headers: await serviceBearer() });
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ checks: { mongodb: { status: 'up' }, kafka: { status: 'up' } } });
    const metrics = await fetch(`${h.urls[0]}/metrics`, { headers: await serviceBearer() });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('kafka_messages_processed_total');
    expect((await fetch(`${h.urls[0]}/metrics`, { headers: await bearer('alice') })).status).toBe(403);
    const served = (await (await fetch(`${h.urls[0]}/docs/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(served.paths)).toEqual(expect.arrayContaining(['/orders/{id}', '/orders', '/health/ready']));
    expect(served).toEqual(committedApiDocument(api).committed);
  });

  it('shuts down gracefully: the consumer leaves its group', async () => {
    const admin = h.kafka.admin();
    await admin.connect();
    await h.apps[0]!.close();
    h.apps.length = 0;
    const after = await waitFor(async () => {
      const g = (await admin.describeGroups([h.config.KAFKA_GROUP_ID])).groups[0];
      return g?.state === 'Empty' ? g : undefined;
    }, 30_000, 'group empty');
    await admin.disconnect();
    expect(after.members).toEqual([]);
  });
});
