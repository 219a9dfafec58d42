import { Carts } from '@mw/contracts';
import { DEMO_USERS, waitFor } from '@mw/testing';
import { CartsHarness, oid, sleep, type Who } from '../test/harness';
import { CheckoutOutboxRepository } from './checkout.repository';

/** POST /carts/{id}/checkout and the order outcomes (real Cassandra + Kafka). */
describe('carts checkout (real Cassandra + Kafka)', () => {
  const h = new CartsHarness();
  const phone = oid(0x3001);
  const cover = oid(0x3002);
  const gone = oid(0x3003);
  const ALICE = DEMO_USERS.alice.id;
  let alice: Who;

  beforeAll(async () => {
    await h.start();
    alice = await h.as('alice');
    await h.product(phone, 1, 3_789_90, { name: 'Смартфон' });
    await h.product(cover, 1, 990_00, { name: 'Чехол' });
    await h.product(gone, 1, 10_00, { name: 'Снят с продажи' });
    await h.drained('catalog.products.v1');
  });
  afterAll(() => h.stop());

  /** A cart of alice (unless given) with 2 phones and 1 cover. */
  async function filledCart(who: Who = alice): Promise<string> {
    const cart = await h.createCart('MSK', who);
    expect((await h.http('PUT', `/carts/${cart}/items/${phone}`, { qty: 2 }, who)).status).toBe(200);
    expect((await h.http('PUT', `/carts/${cart}/items/${cover}`, { qty: 1 }, who)).status).toBe(200);
    return cart;
  }
  const checkout = (cart: string, headers: Record<string, string> = {}) => h.http('POST', `/carts/${cart}/checkout`, undefined, { ...alice, ...headers });
  const status = async (cart: string) => (await h.http('GET', `/carts/${cart}`, undefined, alice)).body['status'];
  const outcome = async (type: 'OrderConfirmed' | 'OrderCancelled', cart: string, checkoutId: string, userId = ALICE) => {
    if (type === 'OrderConfirmed') await h.publish('orders.orders.v1', type, { order_id: oid(0xff), user_id: userId, cart_id: cart, checkout_id: checkoutId });
    else await h.publish('orders.orders.v1', type, { order_id: oid(0xff), user_id: userId, cart_id: cart, checkout_id: checkoutId, reason: 'STOCK_REJECTED' });
    await h.drained('orders.orders.v1');
  };

  it('emits exactly one CheckoutRequested at catalog prices, for the token subject, when called concurrently and again', async () => {
    const cart = await filledCart();
    const answers = await Promise.all(Array.from({ length: 5 }, () => checkout(cart)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 202]);
    const ids = new Set(answers.map((a) => a.body['checkout_id']));
    expect(ids.size).toBe(1);
    const again = await checkout(cart);
    expect(again.status).toBe(200);
    expect(again.body['checkout_id']).toBe([...ids][0]);
    expect(again.body).toMatchObject({ status: 'checking_out', total: '8569.80', currency: 'RUB' });
    // every answer names the order the checkout becomes (the id orders derives from the checkout id)
    for (const a of [...answers, again]) expect(a.body['order_id']).toBe(Carts.orderIdOfCheckout([...ids][0] as string));

    await waitFor(async () => h.checkoutsOf(cart).length >= 1, 30_000, 'CheckoutRequested');
    await sleep(2500); // longer than the relay's min age + a pass: a duplicate would have shown
    const events = h.checkoutsOf(cart);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      key: cart,
      type: 'CheckoutRequested',
      payload: {
        cart_id: cart,
        checkout_id: [...ids][0],
        user_id: ALICE,
        zone: 'MSK',
        currency: 'RUB',
        total: 2 * 3_789_90 + 990_00,
        lines: [
          { product_id: phone, name: 'Смартфон', qty: 2, unit_price: 3_789_90 },
          { product_id: cover, name: 'Чехол', qty: 1, unit_price: 990_00 },
        ].sort((a, b) => a.product_id.localeCompare(b.product_id)),
      },
    });
    expect(await h.app.get(CheckoutOutboxRepository).countAll(h.config.CHECKOUT_OUTBOX_BUCKETS)).toBe(0);
    // Items are frozen while checking out.
    expect((await h.http('PUT', `/carts/${cart}/items/${phone}`, { qty: 1 }, alice)).body).toMatchObject({ code: 'CARTS.NOT_EDITABLE' });
  });

  it('keeps the checkout snapshot price while the cart shows current prices', async () => {
    const p = oid(0x3010);
    await h.product(p, 1, 1000_00);
    const cart = await h.createCart();
    await h.waitForPrice(cart, p, '1000.00');
    const co = await checkout(cart);
    expect(co.status).toBe(202);
    await h.product(p, 2, 1200_00, { priceChangedFrom: 1000_00 });
    await h.drained('catalog.products.v1');
    const view = (await h.http('GET', `/carts/${cart}`, undefined, alice)).body;
    expect(view['total']).toBe('1200.00');
    expect(view['checkout']).toMatchObject({ checkout_id: co.body['checkout_id'], total: '1000.00', lines: [{ product_id: p, unit_price: '1000.00' }] });
  });

  it('honours Idempotency-Key: the same key answers the same checkout, even after the cart reopened', async () => {
    const cart = await filledCart();
    const first = await checkout(cart, { 'idempotency-key': 'key-1' });
    expect(first.status).toBe(202);
    const replay = await checkout(cart, { 'idempotency-key': 'key-1' });
    expect(replay).toMatchObject({ status: 200, body: { checkout_id: first.body['checkout_id'], status: 'checking_out' } });

    await outcome('OrderCancelled', cart, first.body['checkout_id'] as string);
    expect(await status(cart)).toBe('active');
    const late = await checkout(cart, { 'idempotency-key': 'key-1' });
    expect(late).toMatchObject({ status: 200, body: { checkout_id: first.body['checkout_id'], status: 'active' } });

    const second = await checkout(cart, { 'idempotency-key': 'key-2' });
    expect(second.status).toBe(202);
    expect(second.body['checkout_id']).not.toBe(first.body['checkout_id']);
    await waitFor(async () => h.checkoutsOf(cart).length >= 2, 30_000, 'second CheckoutRequested');
    expect(h.checkoutsOf(cart).map((e) => e.payload['checkout_id'])).toEqual([first.body['checkout_id'], second.body['checkout_id']]);

    const bad = await checkout(cart, { 'idempotency-key': 'bad key {}' });
    expect(bad).toMatchObject({ status: 400, body: { errors: [{ field: 'headers.idempotency-key' }] } });
  });

  it('order outcomes move the cart only on its current checkout; stale and replayed outcomes change nothing', async () => {
    const cart = await filledCart();
    const first = (await checkout(cart)).body['checkout_id'] as string;
    await outcome('OrderCancelled', cart, first);
    expect(await status(cart)).toBe('active');
    const second = (await checkout(cart)).body['checkout_id'] as string;
    expect(second).not.toBe(first);

    // Stale: outcomes of the first checkout, replayed, reach a cart now on the second.
    await outcome('OrderCancelled', cart, first);
    await outcome('OrderConfirmed', cart, first);
    expect(await status(cart)).toBe('checking_out');
    expect(((await h.http('GET', `/carts/${cart}`, undefined, alice)).body['checkout'] as { checkout_id: string }).checkout_id).toBe(second);

    await outcome('OrderConfirmed', cart, second);
    expect(await status(cart)).toBe('ordered');
    await outcome('OrderCancelled', cart, second); // a late cancel after the confirm
    await outcome('OrderConfirmed', cart, second); // a replay
    expect(await status(cart)).toBe('ordered');

    // alice's own listings (the token subject's; alice has other carts in this suite)
    const list = async (s: string) => (await h.http('GET', `/carts?status=${s}&limit=50`, undefined, alice)).body['cart_ids'] as string[];
    expect(await list('ordered')).toContain(cart);
    expect(await list('active')).not.toContain(cart);
    expect(await list('checking_out')).not.toContain(cart);
    expect((await checkout(cart)).body).toMatchObject({ code: 'CARTS.NOT_CHECKOUTABLE', errors: [{ field: 'status' }] });
    expect((await h.http('PUT', `/carts/${cart}/items/${phone}`, { qty: 1 }, alice)).status).toBe(409);
  });

  it('an OrderRejected reopens the cart for that checkout', async () => {
    const cart = await filledCart();
    const id = (await checkout(cart)).body['checkout_id'] as string;
    await h.publish('orders.orders.v1', 'OrderRejected', { checkout_id: id, cart_id: cart, user_id: ALICE, code: 'ZONE_NOT_SERVED', field: 'zone', message: 'no' });
    await h.drained('orders.orders.v1');
    expect(await status(cart)).toBe('active');
    expect((await h.http('PUT', `/carts/${cart}/items/${phone}`, { qty: 1 }, alice)).status).toBe(200);
  });

  it('only the signed-in owner with the role customer checks out: a guest 401, bob on alice’s cart 404, carol 403 — nothing published', async () => {
    const guest = await h.guest();
    const guestCart = await h.createCart('MSK', guest);
    expect((await h.http('PUT', `/carts/${guestCart}/items/${phone}`, { qty: 1 }, guest)).status).toBe(200);
    const asGuest = await h.http('POST', `/carts/${guestCart}/checkout`, undefined, guest);
    expect(asGuest.status).toBe(401);
    expect(asGuest.body).toMatchObject({ code: 'AUTH.UNAUTHENTICATED' });

    const alicesCart = await filledCart();
    const byBob = await h.http('POST', `/carts/${alicesCart}/checkout`, undefined, await h.as('bob'));
    expect(byBob.status).toBe(404);
    expect(byBob.body['code']).toBe('CARTS.CART_NOT_FOUND');
    const byCarol = await h.http('POST', `/carts/${alicesCart}/checkout`, undefined, await h.as('carol'));
    expect(byCarol.status).toBe(403);
    expect(byCarol.body['code']).toBe('AUTH.FORBIDDEN');
    const anonymous = await h.http('POST', `/carts/${alicesCart}/checkout`);
    expect(anonymous.status).toBe(401);

    await sleep(1500);
    expect(h.checkoutsOf(guestCart)).toEqual([]);
    expect(h.checkoutsOf(alicesCart)).toEqual([]);
    expect(await status(alicesCart)).toBe('active');
  });

  it.each([
    ['an empty cart', async () => h.createCart(), 422, 'CARTS.EMPTY_CART', 'items'],
    [
      'a cart holding a product the catalog deleted',
      async () => {
        const c = await filledCart();
        await h.http('PUT', `/carts/${c}/items/${gone}`, { qty: 1 }, alice);
        await h.publish('catalog.products.v1', 'ProductDeleted', { product_id: gone, version: 2, category_id: oid(0xca7), ancestors: [oid(0xca7)], created_at: '2026-11-21T10:00:00.000Z', deleted_at: '2026-11-21T12:00:00.000Z' });
        await h.drained('catalog.products.v1');
        return c;
      },
      409,
      'CARTS.PRODUCT_UNAVAILABLE',
      `items.${gone}`,
    ],
  ])('refuses to check out %s with a code naming the field, publishing nothing', async (_n, make, httpStatus, code, field) => {
    const cart = await make();
    const r = await checkout(cart);
    expect(r.status).toBe(httpStatus);
    expect(r.body).toMatchObject({ code, errors: expect.arrayContaining([expect.objectContaining({ field })]) });
    expect(await status(cart)).toBe('active');
    expect(h.checkoutsOf(cart)).toEqual([]);
  });
});
