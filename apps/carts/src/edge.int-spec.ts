import { GuestSessions } from '@mw/platform';
import { committedApiDocument, DEMO_USERS } from '@mw/testing';
import { api } from './api';
import { DEV_GUEST_SESSION_SECRET } from './config';
import { CartsHarness, oid, TEST_GUEST_SESSION_SECRET, type Who } from './test/harness';

/** The carts API edge against the real Keycloak, Cassandra and Kafka: who may call what, on whose carts (ADR 0007). */
describe('carts API edge (real tokens from Keycloak, guest sessions)', () => {
  const h = new CartsHarness();
  const phone = oid(0x6001);
  let alice: Who;
  let bob: Who;

  beforeAll(async () => {
    await h.start();
    [alice, bob] = [await h.as('alice'), await h.as('bob')];
    await h.product(phone, 1, 3_789_90, { name: 'Смартфон' });
    await h.drained('catalog.products.v1');
  });
  afterAll(() => h.stop());

  it('serves the committed OpenAPI document', async () => {
    const served = await fetch(`${h.url}/docs/openapi.json`);
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual(committedApiDocument(api).committed);
  });

  it('issues guest sessions that own guest carts', async () => {
    const r = await h.http('POST', '/guest-sessions');
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      guest_session: expect.stringMatching(/^gs2\.k1\./),
      session_id: expect.any(String),
      expires_at: expect.any(String),
    });
    expect(Date.parse(r.body['expires_at'] as string) - Date.now()).toBeGreaterThan(
      h.config.GUEST_SESSION_TTL_SECONDS * 1000 - 60_000,
    );
    const guest = { 'x-guest-session': r.body['guest_session'] as string };
    const cart = await h.http('POST', '/carts', { zone: 'MSK' }, guest);
    expect(cart.status).toBe(201);
    expect(cart.body).toMatchObject({
      user_id: null,
      session_id: r.body['session_id'],
      status: 'active',
      merged_into: null,
    });
    const put = await h.http(
      'PUT',
      `/carts/${cart.body['cart_id'] as string}/items/${phone}`,
      { qty: 2 },
      guest,
    );
    expect(put).toMatchObject({ status: 200, body: { total: '7579.80' } });
  });

  it('a signed-in caller’s cart belongs to the token subject; lists show only the caller’s own carts', async () => {
    const created = await h.http('POST', '/carts', { zone: 'SPB' }, alice);
    expect(created).toMatchObject({ status: 201, body: { user_id: DEMO_USERS.alice.id, session_id: null } });
    const bobs = await h.createCart('SPB', bob);
    const list = (await h.http('GET', '/carts?limit=50', undefined, alice)).body['cart_ids'] as string[];
    expect(list).toContain(created.body['cart_id']);
    expect(list).not.toContain(bobs);
  });

  it('401 with a code naming the credential: no token, a garbage or malformed token, a forged or expired guest session', async () => {
    const cases: [string, Record<string, string>, string, string][] = [
      ['GET', {}, 'AUTH.UNAUTHENTICATED', 'headers.authorization'],
      ['GET', { authorization: 'Bearer aaa.bbb.ccc' }, 'AUTH.INVALID_TOKEN', 'headers.authorization'],
      [
        'GET',
        { authorization: 'Basic YWxpY2U6ZGVtbw==' },
        'AUTH.MALFORMED_AUTHORIZATION',
        'headers.authorization',
      ],
    ];
    for (const [method, headers, code, field] of cases) {
      const r = await h.http(method, '/carts', undefined, headers);
      expect({
        status: r.status,
        code: r.body['code'],
        field: (r.body['errors'] as { field: string }[])[0]?.field,
      }).toEqual({ status: 401, code, field });
    }
    const real = await h.guest();
    const sessionId = real['x-guest-session'].split('.')[2] as string; // gs2.<key id>.<session id>.<expiry>.<signature>
    const forged = {
      'another session id': real['x-guest-session'].replace(
        sessionId,
        '00000000-0000-4000-8000-000000000000',
      ),
      'a longer life': real['x-guest-session'].replace(
        /\.(\d+)\./,
        (_m, exp: string) => `.${Number(exp) + 86_400}.`,
      ),
      'the development key': new GuestSessions(DEV_GUEST_SESSION_SECRET, 3600).issue().token,
      expired: new GuestSessions(TEST_GUEST_SESSION_SECRET, 60, () => Date.now() - 3_600_000).issue().token,
      garbage: 'gs1.nope',
    };
    for (const [name, token] of Object.entries(forged)) {
      const r = await h.http('POST', '/carts', { zone: 'MSK' }, { 'x-guest-session': token });
      expect({ name, status: r.status, code: r.body['code'] }).toEqual({
        name,
        status: 401,
        code: 'AUTH.INVALID_GUEST_SESSION',
      });
    }
    // A guest session is not accepted where only users may go.
    expect((await h.http('GET', '/carts', undefined, real)).status).toBe(401);
  });

  it('somebody else’s cart is a 404 with the code of a missing cart: bob → alice’s, guest A → guest B’s, a guest → a user’s and back', async () => {
    const [guestA, guestB] = [await h.guest(), await h.guest()];
    const alicesCart = await h.createCart('MSK', alice);
    const guestBsCart = await h.createCart('MSK', guestB);
    for (const [owner, cart] of [
      [alice, alicesCart],
      [guestB, guestBsCart],
    ] as const) {
      expect((await h.http('PUT', `/carts/${cart}/items/${phone}`, { qty: 1 }, owner)).status).toBe(200);
    }
    const missing = await h.http('GET', '/carts/00000000-0000-4000-8000-000000000000', undefined, alice);
    expect(missing).toMatchObject({ status: 404, body: { code: 'CARTS.CART_NOT_FOUND' } });
    for (const [who, cart] of [
      [bob, alicesCart],
      [guestA, alicesCart],
      [guestA, guestBsCart],
      [alice, guestBsCart],
    ] as const) {
      for (const [method, path, body] of [
        ['GET', `/carts/${cart}`, undefined],
        ['PUT', `/carts/${cart}/items/${phone}`, { qty: 9 }],
        ['DELETE', `/carts/${cart}/items/${phone}`, undefined],
      ] as const) {
        const r = await h.http(method, path, body, who);
        expect({ method, status: r.status, code: r.body['code'] }).toEqual({
          method,
          status: 404,
          code: 'CARTS.CART_NOT_FOUND',
        });
      }
    }
    // Nothing changed for the owners.
    expect(
      (
        (await h.http('GET', `/carts/${alicesCart}`, undefined, alice)).body['items'] as Record<
          string,
          { qty: number }
        >
      )[phone]?.qty,
    ).toBe(1);
    expect(
      (
        (await h.http('GET', `/carts/${guestBsCart}`, undefined, guestB)).body['items'] as Record<
          string,
          { qty: number }
        >
      )[phone]?.qty,
    ).toBe(1);
  });

  it('405 with Allow for an undeclared method on a declared path; 404 for an unknown path', async () => {
    const cart = await h.createCart('MSK', alice);
    for (const [method, path, allow] of [
      ['PATCH', `/carts/${cart}`, 'GET, HEAD'],
      ['DELETE', '/carts', 'GET, HEAD, POST'],
      ['GET', '/guest-sessions', 'POST'],
      ['GET', `/carts/${cart}/checkout`, 'POST'],
    ] as const) {
      const r = await fetch(`${h.url}${path}`, { method, headers: alice });
      expect({ method, path, status: r.status, allow: r.headers.get('allow') }).toEqual({
        method,
        path,
        status: 405,
        allow,
      });
    }
    expect((await fetch(`${h.url}/baskets`, { headers: alice })).status).toBe(404);
  });

  it('limits new guest sessions per client address (their own bucket), writes per caller, with 429 and Retry-After', async () => {
    const limited = new CartsHarness({}, { rateLimitWritesPerMinute: 3, rateLimitGuestSessionsPerHour: 2 });
    await limited.start();
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await fetch(`${limited.url}/guest-sessions`, { method: 'POST' }));
      expect(answers.map((a) => a.status)).toEqual([201, 201, 429]);
      expect(Number(answers[2]?.headers.get('retry-after'))).toBeGreaterThan(60); // an hour's bucket
      expect(await answers[2]?.json()).toMatchObject({ code: 'COMMON.RATE_LIMITED' });
      // each issued session writes from a bucket of its own, but only as many sessions as the address may have
      const guest = { 'x-guest-session': String(((await answers[0]?.json()) as { guest_session: string }).guest_session) };
      const creates = [];
      for (let i = 0; i < 4; i++) creates.push((await limited.http('POST', '/carts', { zone: 'MSK' }, guest)).status);
      expect(creates).toEqual([201, 201, 201, 429]);
      expect((await fetch(`${limited.url}/health`)).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });

  it('caps active carts per owner: one more is a 409 CARTS.TOO_MANY_CARTS, other owners are not affected', async () => {
    const capped = new CartsHarness({ CARTS_MAX_ACTIVE_PER_OWNER: '2' });
    await capped.start();
    try {
      const bob = await capped.as('bob');
      expect([(await capped.http('POST', '/carts', { zone: 'MSK' }, bob)).status, (await capped.http('POST', '/carts', { zone: 'SPB' }, bob)).status]).toEqual([201, 201]);
      const third = await capped.http('POST', '/carts', { zone: 'EKB' }, bob);
      expect({ status: third.status, code: third.body['code'] }).toEqual({ status: 409, code: 'CARTS.TOO_MANY_CARTS' });
      const guest = await capped.guest();
      const guestStatuses = [];
      for (let i = 0; i < 3; i++) guestStatuses.push((await capped.http('POST', '/carts', { zone: 'MSK' }, guest)).status);
      expect(guestStatuses).toEqual([201, 201, 409]);
      expect((await capped.http('POST', '/carts', { zone: 'MSK' }, await capped.as('alice'))).status).toBe(201);
    } finally {
      await capped.stop();
    }
  });
});
