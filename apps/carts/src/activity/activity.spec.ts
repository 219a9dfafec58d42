import { createMessage, type EnvelopeOf } from '@mw/contracts';
import { AppError, type Caller } from '@mw/platform';
import { newCart, touched } from '../carts/cart';
import {
  type ActivityEvent,
  cartActivity,
  collectPage,
  CURSOR_PATTERN,
  DailyQuota,
  dayIndexTtlSeconds,
  dayOf,
  decodeCursor,
  encodeCursor,
  eventTtlSeconds,
  orderActivity,
  positionOf,
} from './activity';
import { activityOwner } from './activity-access';

const DAY = 86_400;
const ALICE = 'a11ce000-5eed-4000-8000-000000000001';
const t0 = new Date('2026-11-22T10:00:00.000Z');

const ev = (iso: string, type: ActivityEvent['event_type'] = 'CART_ITEM_PUT', id = iso): ActivityEvent => ({
  user_id: ALICE,
  event_time: new Date(iso),
  event_type: type,
  event_id: id,
  resource_id: null,
  details: {},
});

async function* source(rows: readonly ActivityEvent[], read: { n: number }): AsyncGenerator<ActivityEvent> {
  for (const r of rows) {
    read.n++;
    yield r;
  }
}

describe('activity partitions and lifetimes', () => {
  it('partitions by the UTC day of the event time', () => {
    expect(dayOf(new Date('2026-11-22T23:59:59.999Z'))).toBe('2026-11-22');
    expect(dayOf(new Date('2026-11-23T00:00:00.000Z'))).toBe('2026-11-23');
    // 02:30 in Moscow is still the previous UTC day
    expect(dayOf(new Date('2026-11-23T02:30:00.000+03:00'))).toBe('2026-11-22');
  });

  it('an event lives its retention from its event_time: a replay expires with the original, one past retention is not written', () => {
    expect(eventTtlSeconds(t0, t0, 90 * DAY)).toBe(90 * DAY);
    expect(eventTtlSeconds(t0, new Date(t0.getTime() + 10 * DAY * 1000), 90 * DAY)).toBe(80 * DAY);
    expect(eventTtlSeconds(t0, new Date(t0.getTime() + 90 * DAY * 1000), 90 * DAY)).toBe(0);
    expect(eventTtlSeconds(t0, new Date(t0.getTime() + 400 * DAY * 1000), 90 * DAY)).toBe(0);
    // a producer clock far ahead cannot make a row live much longer than the retention
    expect(eventTtlSeconds(new Date('2030-01-01T00:00:00Z'), t0, 90 * DAY)).toBe(91 * DAY);
  });

  it('the day index of a day outlives every event of that day', () => {
    const retention = 90 * DAY;
    const now = new Date('2026-11-22T10:00:00.000Z');
    const ttl = dayIndexTtlSeconds('2026-11-22', now, retention);
    const lastEventOfDay = new Date('2026-11-22T23:59:59.999Z');
    expect(now.getTime() + ttl * 1000).toBeGreaterThanOrEqual(lastEventOfDay.getTime() + retention * 1000);
    expect(dayIndexTtlSeconds('2026-08-01', now, retention)).toBe(0);
  });
});

describe('activity rows are keyed deterministically by their source', () => {
  const cart = newCart(
    { cart_id: 'ba86a7e1-3f0c-4b8e-9d56-2f1f0c6d7a10', user_id: ALICE, session_id: null, zone: 'MSK' },
    t0,
    60,
  );

  it('an order event becomes one row per message: time from occurred_at, id from the envelope id', () => {
    const payload = {
      order_id: '56e540608eca05a5f7400db0',
      user_id: ALICE,
      cart_id: cart.cart_id,
      checkout_id: '49ad7c1e-2f0b-4d8e-9a57-0c3b5e8f1a26',
    };
    const msg = createMessage(
      'orders.orders.v1',
      'OrderCancelled',
      { ...payload, reason: 'CANCELLED_BY_USER', after_confirmation: true },
      { correlation_id: 'c', causation_id: null },
      t0,
    );
    const e = msg.envelope as EnvelopeOf<'orders.orders.v1'>;
    const row = orderActivity(e);
    expect(row).toEqual({
      user_id: ALICE,
      event_time: t0,
      event_type: 'ORDER_CANCELLED',
      event_id: e.id,
      resource_id: payload.order_id,
      details: {
        cart_id: payload.cart_id,
        checkout_id: payload.checkout_id,
        reason: 'CANCELLED_BY_USER',
        after_confirmation: true,
      },
    });
    // a redelivery of the same message (JSON round trip, as Kafka hands it over) is the same row
    expect(orderActivity(JSON.parse(JSON.stringify(e)) as EnvelopeOf<'orders.orders.v1'>)).toEqual(row);
  });

  it.each([
    ['OrderCreated', 'ORDER_CREATED'],
    ['OrderConfirmed', 'ORDER_CONFIRMED'],
    ['OrderDeliveryStarted', 'ORDER_DELIVERY_STARTED'],
    ['OrderCompleted', 'ORDER_COMPLETED'],
  ] as const)('%s → %s about the order', (type, activityType) => {
    const payload = {
      order_id: '56e540608eca05a5f7400db0',
      user_id: ALICE,
      cart_id: cart.cart_id,
      checkout_id: '49ad7c1e-2f0b-4d8e-9a57-0c3b5e8f1a26',
      zone: 'MSK',
      total: 757_980,
      currency: 'RUB' as const,
    };
    const e = createMessage(
      'orders.orders.v1',
      type,
      payload as never,
      { correlation_id: 'c', causation_id: null },
      t0,
    ).envelope as EnvelopeOf<'orders.orders.v1'>;
    expect(orderActivity(e)).toMatchObject({
      event_type: activityType,
      resource_id: payload.order_id,
      event_id: e.id,
    });
  });

  it('a rejected checkout is about the checkout (it never became an order), with its reason', () => {
    const e = createMessage(
      'orders.orders.v1',
      'OrderRejected',
      {
        checkout_id: '49ad7c1e-2f0b-4d8e-9a57-0c3b5e8f1a26',
        cart_id: cart.cart_id,
        user_id: ALICE,
        code: 'ZONE_NOT_SERVED',
        field: 'zone',
        message: 'no',
      },
      { correlation_id: 'c', causation_id: null },
      t0,
    ).envelope as EnvelopeOf<'orders.orders.v1'>;
    expect(orderActivity(e)).toMatchObject({
      event_type: 'ORDER_REJECTED',
      resource_id: '49ad7c1e-2f0b-4d8e-9a57-0c3b5e8f1a26',
      details: { code: 'ZONE_NOT_SERVED', field: 'zone' },
    });
  });

  it('each cart write is its own row (its revision), a checkout is one row however often it is answered', () => {
    const put1 = touched(cart, { items: { p: { name: 'A', qty: 1, unit_price: 100 } } }, t0, 60);
    const put2 = touched(put1, { items: { p: { name: 'A', qty: 1, unit_price: 100 } } }, t0, 60);
    expect(cartActivity.itemPut(ALICE, put1, 'p', { name: 'A', qty: 1, unit_price: 100 }).event_id).not.toBe(
      cartActivity.itemPut(ALICE, put2, 'p', { name: 'A', qty: 1, unit_price: 100 }).event_id,
    );
    const checkout = { checkout_id: 'k1', requested_at: '2026-11-22T10:00:05.000Z', lines: [], total: 100 };
    const first = cartActivity.checkoutRequested(
      ALICE,
      touched(put2, { status: 'checking_out', checkout }, t0, 60),
      checkout,
    );
    const later = cartActivity.checkoutRequested(
      ALICE,
      touched(put2, { status: 'ordered', checkout }, new Date('2026-11-22T11:00:00Z'), 60),
      checkout,
    );
    expect(later).toEqual(first);
    expect(first).toMatchObject({
      event_time: new Date('2026-11-22T10:00:05.000Z'),
      event_id: 'k1',
      details: { total: '1.00' },
    });
  });
});

describe('activity cursor', () => {
  const p = positionOf(ev('2026-11-22T09:58:12.345Z', 'CART_ITEM_PUT', 'cart:2'));

  it('round-trips a position for its user, and matches the documented pattern', () => {
    const c = encodeCursor(ALICE, p);
    expect(c).toMatch(CURSOR_PATTERN);
    expect(decodeCursor(c, ALICE)).toEqual({ ok: true, position: p });
    expect(c).not.toContain(ALICE);
  });

  it("refuses another user's cursor, and strings it did not issue", () => {
    expect(decodeCursor(encodeCursor(ALICE, p), 'b0b00000-5eed-4000-8000-000000000002')).toEqual({
      ok: false,
      problem: 'another-user',
    });
    const forged = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    const good = JSON.parse(Buffer.from(encodeCursor(ALICE, p), 'base64url').toString()) as Record<
      string,
      unknown
    >;
    for (const bad of [
      'AAAAAAAAAAAAAAAAAAAA',
      forged({ ...good, y: 'NOT_A_TYPE' }),
      forged({ ...good, d: '2026-11-21' }), // the day does not hold the time
      forged({ ...good, t: -1 }),
      forged({ ...good, extra: 1 }),
      forged([1, 2, 3]),
    ]) {
      expect(decodeCursor(bad, ALICE)).toEqual({ ok: false, problem: 'malformed' });
    }
  });
});

describe('a page of activity', () => {
  const rows = [
    ev('2026-11-22T10:00:03Z', 'ORDER_CONFIRMED'),
    ev('2026-11-22T10:00:02Z', 'CART_ITEM_PUT'),
    ev('2026-11-22T10:00:01Z', 'CART_ITEM_PUT'),
    ev('2026-11-21T10:00:00Z', 'LOGIN'),
    ev('2026-11-20T10:00:00Z', 'ORDER_CREATED'),
  ];

  it('takes limit rows, reading one more only to know there is a next page', async () => {
    const read = { n: 0 };
    const page = await collectPage(source(rows, read), { limit: 2, scanBudget: 1000 });
    expect(page.items).toEqual(rows.slice(0, 2));
    expect(page.next).toEqual(positionOf(rows[1] as ActivityEvent));
    expect(read.n).toBe(3);
  });

  it('the last page has no next position', async () => {
    const page = await collectPage(source(rows, { n: 0 }), { limit: 5, scanBudget: 1000 });
    expect(page).toEqual({ items: rows, next: null });
  });

  it('a type filter keeps only that type and stops at the scan budget with a position to go on', async () => {
    expect(
      (await collectPage(source(rows, { n: 0 }), { limit: 5, type: 'CART_ITEM_PUT', scanBudget: 1000 }))
        .items,
    ).toEqual(rows.slice(1, 3));
    const read = { n: 0 };
    const short = await collectPage(source(rows, read), { limit: 5, type: 'ORDER_CREATED', scanBudget: 3 });
    expect(short).toEqual({ items: [], next: positionOf(rows[2] as ActivityEvent) });
    expect(read.n).toBe(3);
  });
});

describe('the daily cap of a (user, day) partition', () => {
  it('counts what the partition holds once, then admits up to the cap and says so once', async () => {
    const quota = new DailyQuota(3);
    let sights = 0;
    const firstSight = async () => {
      sights++;
      return 1;
    };
    const verdicts = [];
    for (let i = 0; i < 4; i++) verdicts.push(await quota.take(ALICE, '2026-11-22', firstSight));
    expect(verdicts).toEqual(['ok', 'ok', 'refused-first', 'refused']);
    expect(sights).toBe(1);
    // another day (or user) is another partition
    expect(await quota.take(ALICE, '2026-11-23', firstSight)).toBe('ok');
    expect(sights).toBe(2);
  });

  it('concurrent first events of a partition count it once; a failed count is tried again', async () => {
    const quota = new DailyQuota(10);
    let sights = 0;
    const answers = await Promise.all([1, 2, 3].map(() => quota.take(ALICE, 'd', async () => ++sights && 0)));
    expect(answers).toEqual(['ok', 'ok', 'ok']);
    expect(sights).toBe(1);
    await expect(quota.take(ALICE, 'e', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await quota.take(ALICE, 'e', async () => 0)).toBe('ok');
  });
});

describe('who reads whose activity', () => {
  const customer: Caller = { kind: 'user', id: ALICE, roles: new Set(['customer']) };
  const support: Caller = { kind: 'user', id: 'sue', roles: new Set(['support']) };
  const operator: Caller = { kind: 'user', id: 'otto', roles: new Set(['operator']) };

  it('a customer reads their own; naming anybody (even themselves) is a 403 on query.user_id', () => {
    expect(activityOwner(customer, undefined)).toBe(ALICE);
    for (const named of [ALICE, 'b0b00000-5eed-4000-8000-000000000002']) {
      const e = (() => {
        try {
          activityOwner(customer, named);
        } catch (err) {
          return err;
        }
        return null;
      })();
      expect(e).toBeInstanceOf(AppError);
      expect(e).toMatchObject({
        code: 'AUTH.FORBIDDEN',
        kind: 'forbidden',
        errors: [{ field: 'query.user_id' }],
      });
    }
  });

  it('support and operator read anybody, themselves without user_id', () => {
    expect(activityOwner(support, ALICE)).toBe(ALICE);
    expect(activityOwner(operator, ALICE)).toBe(ALICE);
    expect(activityOwner(support, undefined)).toBe('sue');
  });
});
