import { DEMO_USERS } from '@mw/testing';
import { touched } from '../carts/cart';
import { CartsRepository } from '../carts/carts.repository';
import { CartsHarness, oid, type Who } from '../test/harness';
import { MergeIntentsRepository } from './merge-intents.repository';

type Lines = Record<string, { name: string; qty: number; unit_price: string | null }>;
type Answer = {
  carts: { cart_id: string; zone: string; items: Lines }[];
  merged: { guest_cart_id: string; into_cart_id: string; zone: string; dropped: unknown[] }[];
};

/**
 * POST /carts/merge against the real Cassandra (LWTs), Kafka and Keycloak: the guest session's carts
 * go into the user's cart once, whatever the concurrency (two service instances), and only for the
 * caller who proves both identities.
 */
describe('guest-cart merge on login (real Cassandra LWT, two service instances)', () => {
  const h = new CartsHarness();
  let h2: CartsHarness;
  const phone = oid(0x7001);
  const cover = oid(0x7002);
  const gone = oid(0x7003);
  let alice: Who;
  let bob: Who;

  beforeAll(async () => {
    await h.start();
    h2 = new CartsHarness(h.env); // a second instance: same keyspace, topics and consumer group
    await h2.start();
    [alice, bob] = [await h.as('alice'), await h.as('bob')];
    await h.product(phone, 1, 1000_00, { name: 'Смартфон' });
    await h.product(cover, 1, 500_00, { name: 'Чехол' });
    await h.product(gone, 1, 10_00, { name: 'Снят с продажи' });
    await h.drained('catalog.products.v1');
  });
  afterAll(async () => {
    await h2?.stop();
    await h.stop();
  });

  const put = async (cart: string, product: string, qty: number, who: Who) =>
    expect((await h.http('PUT', `/carts/${cart}/items/${product}`, { qty }, who)).status).toBe(200);
  const merge = (user: Who, guest: Who, via: CartsHarness = h) =>
    via.http('POST', '/carts/merge', undefined, { ...user, ...guest });
  const items = async (cart: string, who: Who) =>
    (await h.http('GET', `/carts/${cart}`, undefined, who)).body['items'] as Lines;
  const qtys = (lines: Lines) => Object.fromEntries(Object.entries(lines).map(([k, v]) => [k, v.qty]));
  const guestCartWith = async (zone: string, lines: [string, number][]) => {
    const guest = await h.guest();
    const cart = await h.createCart(zone, guest);
    for (const [p, q] of lines) await put(cart, p, q, guest);
    return { guest, cart };
  };
  const activeCartsIn = async (who: Who, zone: string) => {
    const ids = (await h.http('GET', '/carts?status=active&limit=50', undefined, who)).body[
      'cart_ids'
    ] as string[];
    const carts = await Promise.all(
      ids.map(async (id) => (await h.http('GET', `/carts/${id}`, undefined, who)).body),
    );
    return carts.filter((c) => c['zone'] === zone).map((c) => c['cart_id'] as string);
  };

  it("sums quantities once into alice's active cart of the zone, at catalog names and prices; closes the guest cart; a repeat answers the same", async () => {
    const mine = await h.createCart('MSK', alice);
    await put(mine, phone, 2, alice);
    const { guest, cart: guestCart } = await guestCartWith('MSK', [
      [phone, 3],
      [cover, 1],
    ]);

    const first = await merge(alice, guest);
    expect(first.status).toBe(200);
    const body = first.body as unknown as Answer;
    expect(body.merged).toEqual([
      {
        guest_cart_id: guestCart,
        into_cart_id: mine,
        zone: 'MSK',
        merged_at: expect.any(String),
        dropped: [],
      },
    ]);
    expect(body.carts.map((c) => c.cart_id)).toEqual([mine]);
    expect(body.carts[0]?.items).toEqual({
      [phone]: {
        name: 'Смартфон',
        qty: 5,
        unit_price: '1000.00',
        line_total: '5000.00',
        available: null,
        purchasable: true,
      },
      [cover]: {
        name: 'Чехол',
        qty: 1,
        unit_price: '500.00',
        line_total: '500.00',
        available: null,
        purchasable: true,
      },
    });

    const closed = await h.http('GET', `/carts/${guestCart}`, undefined, guest);
    expect(closed.body).toMatchObject({ status: 'merged', merged_into: mine });
    expect((await h.http('PUT', `/carts/${guestCart}/items/${phone}`, { qty: 9 }, guest)).body).toMatchObject(
      { code: 'CARTS.NOT_EDITABLE' },
    );

    const again = await merge(alice, guest, h2);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(qtys(await items(mine, alice))).toEqual({ [phone]: 5, [cover]: 1 });
    expect(await h.app.get(MergeIntentsRepository).countAll()).toBe(0);
  });

  it('creates the user cart when there is none in the zone; drops lines the catalog no longer sells', async () => {
    expect(await activeCartsIn(bob, 'MSK')).toEqual([]);
    const { guest } = await guestCartWith('MSK', [
      [phone, 1],
      [gone, 2],
    ]);
    await h.publish('catalog.products.v1', 'ProductDeleted', {
      product_id: gone,
      version: 2,
      category_id: oid(0xca7),
      ancestors: [oid(0xca7)],
      created_at: '2026-11-21T10:00:00.000Z',
      deleted_at: '2026-11-21T12:00:00.000Z',
    });
    await h.drained('catalog.products.v1');

    const r = await merge(bob, guest);
    expect(r.status).toBe(200);
    const body = r.body as unknown as Answer;
    expect(body.merged[0]?.dropped).toEqual([{ product_id: gone, reason: 'PRODUCT_UNAVAILABLE' }]);
    const created = body.merged[0]?.into_cart_id as string;
    expect(await activeCartsIn(bob, 'MSK')).toEqual([created]);
    expect(await h.http('GET', `/carts/${created}`, undefined, bob)).toMatchObject({
      status: 200,
      body: { user_id: DEMO_USERS.bob.id, session_id: null, zone: 'MSK' },
    });
    expect(qtys(await items(created, bob))).toEqual({ [phone]: 1 });
  });

  it.each([
    ['into an existing cart', true],
    ['into a cart the merge creates', false],
  ])(
    'two logins at once on two instances (8 concurrent calls) merge exactly once — %s',
    async (_name, existing) => {
      const user = existing ? alice : bob;
      const zone = 'EKB';
      const mine = existing ? await h.createCart(zone, user) : null;
      if (mine) await put(mine, phone, 1, user);
      const { guest } = await guestCartWith(zone, [
        [phone, 3],
        [cover, 2],
      ]);
      const before = await activeCartsIn(user, zone);

      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => merge(user, guest, i % 2 === 0 ? h : h2)),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      const merged = answers.map((a) => JSON.stringify((a.body as unknown as Answer).merged));
      expect(new Set(merged).size).toBe(1);
      const into = (answers[0]?.body as unknown as Answer).merged[0]?.into_cart_id as string;
      if (mine) expect(into).toBe(mine);
      expect(qtys(await items(into, user))).toEqual({ [phone]: existing ? 4 : 3, [cover]: 2 });
      // exactly one cart took the lines: no second cart was created by a losing call
      expect((await activeCartsIn(user, zone)).sort()).toEqual([...new Set([...before, into])].sort());
      expect((await merge(user, guest)).body).toEqual(answers[0]?.body);
      expect(qtys(await items(into, user))).toEqual({ [phone]: existing ? 4 : 3, [cover]: 2 });
    },
  );

  it("cannot steal a cart: a session without carts, a forged or missing header, another user's merged session", async () => {
    const { guest, cart: guestCart } = await guestCartWith('SPB', [[phone, 2]]);
    const empty = await h.guest();
    const noCart = await merge(alice, empty);
    expect(noCart).toMatchObject({
      status: 404,
      body: { code: 'CARTS.CART_NOT_FOUND', errors: [{ field: 'headers.x-guest-session' }] },
    });

    const forged = guest['x-guest-session'].replace(
      /^(gs2\.[a-z0-9-]+\.)[0-9a-f-]{36}/,
      `$1${(await h.guest())['x-guest-session'].split('.')[2] ?? ''}`,
    );
    expect((await merge(alice, { 'x-guest-session': forged })).body).toMatchObject({
      code: 'AUTH.INVALID_GUEST_SESSION',
    });
    const missing = await merge(alice, {});
    expect(missing).toMatchObject({
      status: 401,
      body: { code: 'AUTH.GUEST_SESSION_REQUIRED', errors: [{ field: 'headers.x-guest-session' }] },
    });
    expect((await h.http('POST', '/carts/merge', undefined, guest)).status).toBe(401); // a guest alone is not a login

    // alice merges the guest cart; bob, later holding the same session, gets nothing of alice's
    const byAlice = await merge(alice, guest);
    expect(byAlice.status).toBe(200);
    const alicesCart = (byAlice.body as unknown as Answer).merged[0]?.into_cart_id as string;
    const byBob = await merge(bob, guest);
    expect(byBob).toMatchObject({ status: 404, body: { code: 'CARTS.CART_NOT_FOUND' } });
    expect(JSON.stringify(byBob.body)).not.toContain(alicesCart);
    expect((await h.http('GET', `/carts/${alicesCart}`, undefined, bob)).status).toBe(404);
    expect(qtys(await items(alicesCart, alice))[phone]).toBeGreaterThanOrEqual(2);
    expect((await h.http('GET', `/carts/${guestCart}`, undefined, guest)).body).toMatchObject({
      status: 'merged',
      merged_into: alicesCart,
    });
  });

  it('waits while the recorded target is checking out, and moves to another cart once it was ordered — lines added once', async () => {
    // bob's SPB cart checks out; a merge intent recorded before points at it (as if it raced the checkout)
    const target = await h.createCart('SPB', bob);
    await put(target, cover, 1, bob);
    const checkout = await h.http('POST', `/carts/${target}/checkout`, undefined, bob);
    expect(checkout.status).toBe(202);
    const { guest, cart: guestCart } = await guestCartWith('SPB', [[phone, 2]]);
    const repo = h.app.get(CartsRepository);
    const read = await repo.get(guestCart);
    const now = new Date();
    const intent = {
      into_cart_id: target,
      user_id: DEMO_USERS.bob.id,
      started_at: now.toISOString(),
      merged_at: null,
      dropped: [],
    };
    expect(
      read &&
        (await repo.save(
          touched(read, { status: 'merging', merge: intent }, now, h.config.CART_TTL_SECONDS),
          read,
        )),
    ).toBe(true);

    const pending = await merge(bob, guest);
    expect(pending).toMatchObject({ status: 409, body: { code: 'CARTS.MERGE_PENDING' } });
    expect(qtys(await items(target, bob))).toEqual({ [cover]: 1 });

    await h.publish('orders.orders.v1', 'OrderConfirmed', {
      order_id: oid(0xff),
      user_id: DEMO_USERS.bob.id,
      cart_id: target,
      checkout_id: checkout.body['checkout_id'] as string,
    });
    await h.drained('orders.orders.v1');
    expect((await h.http('GET', `/carts/${target}`, undefined, bob)).body['status']).toBe('ordered');

    const done = await merge(bob, guest);
    expect(done.status).toBe(200);
    const into = (done.body as unknown as Answer).merged[0]?.into_cart_id as string;
    expect(into).not.toBe(target);
    expect(qtys(await items(into, bob))).toEqual({ [phone]: 2 });
    expect(qtys(await items(target, bob))).toEqual({ [cover]: 1 });
    expect((await merge(bob, guest)).body).toEqual(done.body);
  });
});
