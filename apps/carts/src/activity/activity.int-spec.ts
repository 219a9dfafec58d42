import { randomUUID } from 'node:crypto';
import {
  decodeJwtPayload,
  DEMO_PASSWORD,
  DEMO_USERS,
  type DemoUser,
  oidcEnv,
  WEB_CLIENT_ID,
} from '@mw/testing';
import { touched } from '../carts/cart';
import { CartsRepository } from '../carts/carts.repository';
import { UserSessionsRepository } from '../sessions/user-sessions.repository';
import { CartsHarness, oid, type Who } from '../test/harness';
import type { ActivityEvent } from './activity';
import { ActivityService } from './activity.service';

type Item = {
  event_time: string;
  event_type: string;
  event_id: string;
  resource_id: string | null;
  details: Record<string, unknown>;
};
type Page = { user_id: string; items: Item[]; next_cursor: string | null };

const ALICE = DEMO_USERS.alice.id;
const BOB = DEMO_USERS.bob.id;
const STAN = DEMO_USERS.stan.id;
const CAP = 50;

/** A new Keycloak login (a password grant of its own, so a new `sid`), not the suite's cached token. */
async function freshLogin(user: DemoUser): Promise<Who & { sid: string }> {
  const r = await fetch(oidcEnv().tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'password',
      client_id: WEB_CLIENT_ID,
      username: user,
      password: DEMO_PASSWORD,
    }),
    signal: AbortSignal.timeout(15_000),
  });
  if (!r.ok) throw new Error(`login of ${user}: ${r.status} ${await r.text()}`);
  const token = ((await r.json()) as { access_token: string }).access_token;
  return { authorization: `Bearer ${token}`, sid: decodeJwtPayload(token)['sid'] as string };
}

/**
 * The user's activity (ADR 0061) against the real Cassandra, Kafka and Keycloak: written from
 * carts' own operations and from orders' events, read newest first with cursors, by its user or
 * by support.
 */
describe('user activity (real Cassandra, Kafka and Keycloak; two service instances)', () => {
  const h = new CartsHarness({ USER_EVENTS_MAX_PER_USER_DAY: String(CAP) });
  let h2: CartsHarness;
  const phone = oid(0x8001);
  const cover = oid(0x8002);
  let alice: Who;
  let bob: Who;
  let sue: Who;

  beforeAll(async () => {
    await h.start();
    h2 = new CartsHarness(h.env); // a second instance: same keyspace, topics and consumer group
    await h2.start();
    [alice, bob, sue] = [await h.as('alice'), await h.as('bob'), await h.as('sue')];
    await h.product(phone, 1, 1000_00, { name: 'Смартфон' });
    await h.product(cover, 1, 500_00, { name: 'Чехол' });
    await h.drained('catalog.products.v1');
  });
  afterAll(async () => {
    await h2?.stop();
    await h.stop();
  });

  const read = (who: Who, query: Record<string, string> = {}, via: CartsHarness = h) =>
    via.http('GET', `/activity?${new URLSearchParams(query).toString()}`, undefined, who);
  /** Every item, following next_cursor page by page (limit per page as given). */
  const everything = async (who: Who, query: Record<string, string> = {}, limit = 100): Promise<Item[]> => {
    const out: Item[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 1000; pages++) {
      const r = await read(who, { ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
      expect(r.status).toBe(200);
      const page = r.body as unknown as Page;
      out.push(...page.items);
      cursor = page.next_cursor;
      if (!cursor) return out;
    }
    throw new Error('no last page');
  };
  const asSupport = (userId: string, query: Record<string, string> = {}, limit = 100) =>
    everything(sue, { ...query, user_id: userId }, limit);
  const ofType = (items: Item[], type: string) => items.filter((i) => i.event_type === type);
  const put = async (cart: string, product: string, qty: number, who: Who) =>
    expect((await h.http('PUT', `/carts/${cart}/items/${product}`, { qty }, who)).status).toBe(200);
  const checkedOut = async (who: Who, product = phone) => {
    const cart = await h.createCart('MSK', who);
    await put(cart, product, 1, who);
    const co = await h.http('POST', `/carts/${cart}/checkout`, undefined, who);
    expect(co.status).toBe(202);
    return { cart, checkoutId: co.body['checkout_id'] as string };
  };

  it('cart changes, a checkout and a merge become the signed-in user’s activity, newest first, once each; a guest’s changes do not', async () => {
    const cart = await h.createCart('MSK', bob);
    await put(cart, phone, 1, bob);
    await put(cart, phone, 2, bob);
    await put(cart, cover, 1, bob);
    expect((await h.http('DELETE', `/carts/${cart}/items/${cover}`, undefined, bob)).status).toBe(200);
    const co = await h.http('POST', `/carts/${cart}/checkout`, undefined, bob);
    expect(co.status).toBe(202);
    const again = await h.http('POST', `/carts/${cart}/checkout`, undefined, bob);
    expect(again).toMatchObject({ status: 200, body: { checkout_id: co.body['checkout_id'] } });

    const guest = await h.guest();
    const guestCart = await h.createCart('MSK', guest);
    await put(guestCart, cover, 3, guest);
    const merged = await h.http('POST', '/carts/merge', undefined, { ...bob, ...guest });
    expect(merged.status).toBe(200);
    expect((await h.http('POST', '/carts/merge', undefined, { ...bob, ...guest })).status).toBe(200); // a repeat
    const into = (merged.body['merged'] as { into_cart_id: string }[])[0]?.into_cart_id;

    const items = await everything(bob);
    expect(items.map((i) => i.event_type)).toEqual([
      'CART_MERGED',
      'CHECKOUT_REQUESTED',
      'CART_ITEM_REMOVED',
      'CART_ITEM_PUT',
      'CART_ITEM_PUT',
      'CART_ITEM_PUT',
      'CART_CREATED',
      'LOGIN',
    ]);
    const times = items.map((i) => Date.parse(i.event_time));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(items[0]).toMatchObject({
      resource_id: into,
      event_id: guestCart,
      details: { guest_cart_id: guestCart, zone: 'MSK', dropped: [] },
    });
    expect(items[1]).toMatchObject({
      resource_id: cart,
      event_id: co.body['checkout_id'],
      details: { checkout_id: co.body['checkout_id'], total: '2000.00', lines: 1 },
    });
    expect(items[2]).toMatchObject({ resource_id: cover, details: { cart_id: cart } });
    expect(items.slice(3, 6).map((i) => [i.resource_id, i.details['qty'], i.details['unit_price']])).toEqual([
      [cover, 1, '500.00'],
      [phone, 2, '1000.00'],
      [phone, 1, '1000.00'],
    ]);
    expect(items[6]).toMatchObject({
      event_type: 'CART_CREATED',
      resource_id: cart,
      details: { zone: 'MSK' },
    });
    // the guest's own cart changes are nobody's activity; the merge names the guest cart
    expect(items.filter((i) => i.resource_id === guestCart || i.details['cart_id'] === guestCart)).toEqual(
      [],
    );
  });

  it('order events become activity once however often they are delivered; a cancel after confirmation ends the cart ordered', async () => {
    // 1. confirmed, handed to delivery, completed — each message delivered twice
    const a = await checkedOut(alice);
    const ref = { order_id: oid(0xa001), user_id: ALICE, cart_id: a.cart, checkout_id: a.checkoutId };
    const sent = [
      await h.publish('orders.orders.v1', 'OrderCreated', {
        ...ref,
        zone: 'MSK',
        total: 1000_00,
        currency: 'RUB',
      }),
      await h.publish('orders.orders.v1', 'OrderConfirmed', ref),
      await h.publish('orders.orders.v1', 'OrderDeliveryStarted', ref),
      await h.publish('orders.orders.v1', 'OrderCompleted', ref),
    ];
    for (const s of sent) await h.resend(s);
    // 2. a cancel after confirmation that overtook its confirm (reordered), delivered twice
    const b = await checkedOut(alice);
    const refB = { order_id: oid(0xa002), user_id: ALICE, cart_id: b.cart, checkout_id: b.checkoutId };
    await h.resend(
      await h.publish('orders.orders.v1', 'OrderCancelled', {
        ...refB,
        reason: 'CANCELLED_BY_USER',
        after_confirmation: true,
      }),
    );
    // 3. a checkout orders rejected
    const c = await checkedOut(alice);
    await h.publish('orders.orders.v1', 'OrderRejected', {
      checkout_id: c.checkoutId,
      cart_id: c.cart,
      user_id: ALICE,
      code: 'ZONE_NOT_SERVED',
      field: 'zone',
      message: 'MSK is not served',
    });
    await h.drained('orders.orders.v1');

    const items = await everything(alice);
    const orderEvents = items.filter((i) => i.event_type.startsWith('ORDER_'));
    expect(orderEvents.map((i) => [i.event_type, i.resource_id])).toEqual([
      ['ORDER_REJECTED', c.checkoutId],
      ['ORDER_CANCELLED', refB.order_id],
      ['ORDER_COMPLETED', ref.order_id],
      ['ORDER_DELIVERY_STARTED', ref.order_id],
      ['ORDER_CONFIRMED', ref.order_id],
      ['ORDER_CREATED', ref.order_id],
    ]);
    // each row is keyed by its message: the envelope id (time: its occurred_at)
    const envelopes = sent.map((s) => JSON.parse(s.value) as { id: string; occurred_at: string });
    expect(orderEvents.slice(2).map((i) => [i.event_id, i.event_time])).toEqual(
      envelopes.reverse().map((e) => [e.id, e.occurred_at]),
    );
    expect(ofType(items, 'ORDER_CANCELLED')[0]?.details).toMatchObject({
      reason: 'CANCELLED_BY_USER',
      after_confirmation: true,
      cart_id: b.cart,
    });
    expect(ofType(items, 'ORDER_CREATED')[0]?.details).toMatchObject({ total: '1000.00', zone: 'MSK' });
    expect(ofType(items, 'ORDER_REJECTED')[0]?.details).toMatchObject({
      code: 'ZONE_NOT_SERVED',
      field: 'zone',
    });

    const status = async (cart: string) =>
      (await h.http('GET', `/carts/${cart}`, undefined, alice)).body['status'];
    expect(await status(a.cart)).toBe('ordered'); // delivery and completion change nothing
    expect(await status(b.cart)).toBe('ordered'); // not reopened: the order had been confirmed
    expect(await status(c.cart)).toBe('active');
  });

  it('an outcome whose cart already moved (its LWT applied, the batch after it lost to a crash) writes its activity row alone', async () => {
    const co = await checkedOut(alice, cover);
    const repo = h.app.get(CartsRepository);
    const read = await repo.get(co.cart);
    if (!read) throw new Error('cart gone');
    // the confirm's LWT as a process that died right after it sent it: the cart is ordered, the batch with the
    // lookup row's delete and the ORDER_CONFIRMED row never went
    expect(await repo.save(touched(read, { status: 'ordered' }, new Date(), h.config.CART_TTL_SECONDS), read)).toBe(true);
    const ref = { order_id: oid(0xa0c1), user_id: ALICE, cart_id: co.cart, checkout_id: co.checkoutId };
    await h.publish('orders.orders.v1', 'OrderConfirmed', ref); // the redelivery
    await h.drained('orders.orders.v1');
    const rows = ofType(await everything(alice), 'ORDER_CONFIRMED').filter((i) => i.resource_id === ref.order_id);
    expect(rows).toHaveLength(1);
  });

  it('pages newest first across several days, ties within a millisecond included, with cursors, a type filter and the retention', async () => {
    const user = `it-${randomUUID()}`;
    const activity = h.app.get(ActivityService);
    const now = Date.now();
    const at = (daysAgo: number, ms = 0) => new Date(now - daysAgo * 86_400_000 - ms);
    const events: ActivityEvent[] = [];
    const add = (t: Date, type: ActivityEvent['event_type'], id: string) =>
      events.push({
        user_id: user,
        event_time: t,
        event_type: type,
        event_id: id,
        resource_id: id,
        details: { n: events.length },
      });
    for (const daysAgo of [0, 1, 3, 10, 40]) {
      add(at(daysAgo, 1000), 'CART_ITEM_PUT', `put-${daysAgo}`);
      add(at(daysAgo, 2000), 'LOGIN', `login-${daysAgo}`);
      add(at(daysAgo, 2000), 'CART_CREATED', `created-${daysAgo}`); // the same millisecond as the LOGIN
      add(at(daysAgo, 2000), 'CART_CREATED', `created-${daysAgo}-b`);
      add(at(daysAgo, 3000), 'ORDER_CONFIRMED', `confirmed-${daysAgo}`);
    }
    const tooOld = {
      user_id: user,
      event_time: at(91),
      event_type: 'LOGIN' as const,
      event_id: 'too-old',
      resource_id: null,
      details: {},
    };
    // written out of order, through both instances
    for (const [i, e] of [...events, tooOld].reverse().entries())
      await (i % 2 ? h2.app.get(ActivityService) : activity).record(e);

    const key = (i: { event_time: string; event_type: string; event_id: string }) =>
      `${Date.parse(i.event_time)}|${i.event_type}|${i.event_id}`;
    const expected = [...events]
      .sort(
        (x, y) =>
          y.event_time.getTime() - x.event_time.getTime() ||
          x.event_type.localeCompare(y.event_type) ||
          x.event_id.localeCompare(y.event_id),
      )
      .map((e) => key({ ...e, event_time: e.event_time.toISOString() }));
    for (const limit of [1, 3, 7, 100]) expect((await asSupport(user, {}, limit)).map(key)).toEqual(expected);
    expect(expected.slice(0, 5).map((k) => k.split('|')[2])).toEqual([
      'put-0',
      'created-0',
      'created-0-b',
      'login-0',
      'confirmed-0',
    ]);

    const logins = await asSupport(user, { type: 'LOGIN' }, 2);
    expect(logins.map((i) => i.event_id)).toEqual(['login-0', 'login-1', 'login-3', 'login-10', 'login-40']);
    // a page ends where the page before it stopped: no row twice, none skipped
    const first = (await read(sue, { user_id: user, limit: '4' })).body as unknown as Page;
    const second = (await read(sue, { user_id: user, limit: '4', cursor: first.next_cursor ?? '' }))
      .body as unknown as Page;
    expect([...first.items, ...second.items].map(key)).toEqual(expected.slice(0, 8));
  });

  it('a customer reads their own activity; support and operator anybody’s; a customer naming a user gets 403', async () => {
    await h.createCart('SPB', alice);
    const own = (await read(alice)).body as unknown as Page;
    expect(own.user_id).toBe(ALICE);
    expect(own.items.length).toBeGreaterThan(0);
    const bySupport = await read(sue, { user_id: ALICE });
    expect(bySupport).toMatchObject({ status: 200, body: { user_id: ALICE } });
    expect((bySupport.body as unknown as Page).items.map((i) => i.event_id)).toEqual(
      own.items.map((i) => i.event_id),
    );
    expect(await read(await h.as('otto'), { user_id: ALICE })).toMatchObject({
      status: 200,
      body: { user_id: ALICE },
    });
    expect(await read(sue)).toMatchObject({ status: 200, body: { user_id: DEMO_USERS.sue.id } });

    for (const named of [BOB, ALICE]) {
      const r = await read(alice, { user_id: named });
      expect(r).toMatchObject({
        status: 403,
        body: { code: 'AUTH.FORBIDDEN', errors: [{ field: 'query.user_id' }] },
      });
    }
    expect(await read(await h.as('carol'))).toMatchObject({ status: 403, body: { code: 'AUTH.FORBIDDEN' } });
    expect(await read({})).toMatchObject({ status: 401, body: { code: 'AUTH.UNAUTHENTICATED' } });
    expect(await read(await h.guest())).toMatchObject({ status: 401 });
  });

  it('bad input is refused naming the field: limit out of range, a malformed cursor, a cursor of another user', async () => {
    for (const limit of ['0', '101', 'ten', '1.5']) {
      expect(await read(alice, { limit })).toMatchObject({
        status: 400,
        body: { code: 'COMMON.VALIDATION_FAILED', errors: [{ field: 'query.limit' }] },
      });
    }
    expect(await read(alice, { type: 'CLICK' })).toMatchObject({
      status: 400,
      body: { errors: [{ field: 'query.type' }] },
    });
    expect(await read(alice, { cursor: 'not a cursor!' })).toMatchObject({
      status: 400,
      body: { errors: [{ field: 'query.cursor' }] },
    });
    expect(await read(alice, { cursor: 'A'.repeat(40) })).toMatchObject({
      status: 422,
      body: { code: 'CARTS.INVALID_CURSOR', errors: [{ field: 'query.cursor' }] },
    });
    expect(await read(alice, { unknown: '1' })).toMatchObject({ status: 400 });

    const alicesCursor = ((await read(alice, { limit: '1' })).body as unknown as Page).next_cursor;
    expect(alicesCursor).toEqual(expect.any(String));
    expect(await read(bob, { cursor: alicesCursor ?? '' })).toMatchObject({
      status: 422,
      body: { code: 'CARTS.FOREIGN_CURSOR', errors: [{ field: 'query.cursor' }] },
    });
    expect(await read(sue, { user_id: BOB, cursor: alicesCursor ?? '' })).toMatchObject({
      status: 422,
      body: { code: 'CARTS.FOREIGN_CURSOR' },
    });
    expect(await read(sue, { user_id: ALICE, cursor: alicesCursor ?? '', limit: '1' })).toMatchObject({
      status: 200,
    });
  });

  it('one LOGIN per Keycloak session, whichever instance sees its requests; a new login is a new LOGIN', async () => {
    // the LWT on user_sessions runs once per session and instance, not once per request (calls counted, not replaced)
    const lwts = [h, h2].map((x) => jest.spyOn(x.app.get(UserSessionsRepository), 'insertIfAbsent'));
    const first = await freshLogin('stan');
    for (const via of [h, h2, h, h2, h])
      expect((await via.http('GET', '/carts', undefined, first)).status).toBe(200);
    expect(lwts.map((spy) => spy.mock.calls.length)).toEqual([1, 1]);
    let logins = ofType(await asSupport(STAN), 'LOGIN');
    expect(logins.map((i) => i.event_id)).toEqual([first.sid]);
    expect(await h.app.get(UserSessionsRepository).get(first.sid)).toMatchObject({
      session_id: first.sid,
      user_id: STAN,
    });

    const second = await freshLogin('stan');
    expect(second.sid).not.toBe(first.sid);
    expect((await h2.http('GET', '/carts', undefined, second)).status).toBe(200);
    expect((await h.http('GET', '/carts', undefined, second)).status).toBe(200);
    logins = ofType(await asSupport(STAN), 'LOGIN');
    expect(logins.map((i) => i.event_id)).toEqual([second.sid, first.sid]);
    for (const spy of lwts) spy.mockRestore();
  });

  it(`caps a (user, day) partition at USER_EVENTS_MAX_PER_USER_DAY (${CAP}), also for an instance that starts counting later`, async () => {
    const user = `bot-${randomUUID()}`;
    const base = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 12 * 3_600_000; // noon yesterday (UTC): one day partition
    const event = (n: number): ActivityEvent => ({
      user_id: user,
      event_time: new Date(base + n),
      event_type: 'CART_ITEM_PUT',
      event_id: `e${n}`,
      resource_id: null,
      details: {},
    });
    for (let n = 0; n < CAP + 10; n++) await h.app.get(ActivityService).record(event(n));
    for (let n = CAP + 10; n < CAP + 15; n++) await h2.app.get(ActivityService).record(event(n));
    const kept = await asSupport(user);
    expect(kept).toHaveLength(CAP);
    expect(kept.at(-1)?.event_id).toBe('e0'); // the first events of the day are kept, the flood beyond the cap is not
  });
});
