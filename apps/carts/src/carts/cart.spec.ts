import {
  Cart,
  checkoutOfKey,
  isExpired,
  isOwnedBy,
  listedUnder,
  lookupMarginSeconds,
  lookupPartitionsOf,
  lookupWriteNeeded,
  MAX_REMEMBERED_KEYS,
  newCart,
  type OrderOutcome,
  ownerColumns,
  putLine,
  rememberKey,
  statusAfterOutcome,
  touched,
} from './cart';

const t0 = new Date('2026-11-21T10:00:00.000Z');
const cart = (over: Partial<Cart> = {}): Cart => ({
  ...newCart({ cart_id: 'c', user_id: 'u', session_id: null, zone: 'MSK' }, t0, 60),
  ...over,
});
const line = { name: 'A', qty: 1, unit_price: 100 };
const onCheckout = (id: string): Partial<Cart> => ({
  status: 'checking_out',
  checkout: { checkout_id: id, lines: [], total: 0 },
});
const confirmed: OrderOutcome = { type: 'OrderConfirmed' };
const cancelled: OrderOutcome = { type: 'OrderCancelled', after_confirmation: false };
const cancelledAfterConfirmation: OrderOutcome = { type: 'OrderCancelled', after_confirmation: true };
const rejected: OrderOutcome = { type: 'OrderRejected' };

describe('cart rules', () => {
  it('a change moves the whole cart: one revision on, expiry from the change (the cart TTL, not a cell TTL)', () => {
    const later = new Date(t0.getTime() + 30_000);
    const next = touched(cart(), { items: { p: line } }, later, 60);
    expect(next.revision).toBe(2);
    expect(next.expires_at.toISOString()).toBe('2026-11-21T10:01:30.000Z');
    expect(isExpired(next, new Date('2026-11-21T10:01:29.999Z'))).toBe(false);
    expect(isExpired(next, new Date('2026-11-21T10:01:30.000Z'))).toBe(true);
  });

  it('allows edits only on active carts, and a new line only below the limit', () => {
    expect(putLine(cart({ status: 'checking_out' }), 'p', line, 10)).toEqual({
      ok: false,
      refusal: { code: 'CARTS.NOT_EDITABLE' },
    });
    const full = cart({ items: { a: line, b: line } });
    expect(putLine(full, 'c', line, 2)).toEqual({
      ok: false,
      refusal: { code: 'CARTS.TOO_MANY_LINES', max: 2 },
    });
    expect(putLine(full, 'a', { ...line, qty: 3 }, 2)).toMatchObject({ ok: true, items: { a: { qty: 3 } } });
  });

  it('an outcome moves the cart only while it is checking out on that checkout', () => {
    expect(statusAfterOutcome(cart(onCheckout('k1')), confirmed, 'k1')).toBe('ordered');
    expect(statusAfterOutcome(cart(onCheckout('k1')), cancelled, 'k1')).toBe('active');
    expect(statusAfterOutcome(cart(onCheckout('k1')), rejected, 'k1')).toBe('active');
  });

  it('a cancel after confirmation that overtook its OrderConfirmed ends the cart ordered: a confirmed order never reopens its cart', () => {
    expect(statusAfterOutcome(cart(onCheckout('k1')), cancelledAfterConfirmation, 'k1')).toBe('ordered');
    // and the confirm arriving after it finds the cart ordered: nothing more to do
    expect(statusAfterOutcome(cart({ ...onCheckout('k1'), status: 'ordered' }), confirmed, 'k1')).toBeNull();
  });

  it.each([
    ['delivery started', { type: 'OrderDeliveryStarted' }],
    ['completed', { type: 'OrderCompleted' }],
  ] as const)('order %s changes no cart status, whatever the cart', (_n, outcome) => {
    for (const over of [
      onCheckout('k1'),
      { ...onCheckout('k1'), status: 'ordered' },
      {},
      { status: 'abandoned' },
    ] as Partial<Cart>[]) {
      expect(statusAfterOutcome(cart(over), outcome, 'k1')).toBeNull();
    }
  });

  it.each([
    ['a stale checkout', onCheckout('k2'), cancelled, 'k1'],
    ['a replayed confirm', { ...onCheckout('k1'), status: 'ordered' }, confirmed, 'k1'],
    ['a late cancel after the confirm', { ...onCheckout('k1'), status: 'ordered' }, cancelled, 'k1'],
    [
      'a late cancel after confirmation',
      { ...onCheckout('k1'), status: 'ordered' },
      cancelledAfterConfirmation,
      'k1',
    ],
    ['a cancel after confirmation of another checkout', onCheckout('k2'), cancelledAfterConfirmation, 'k1'],
    ['an outcome for an active cart', {}, confirmed, 'k1'],
  ] as const)('ignores %s', (_n, over, outcome, id) => {
    expect(statusAfterOutcome(cart(over as Partial<Cart>), outcome, id)).toBeNull();
  });

  it('remembers the latest idempotency keys, each for its checkout', () => {
    let keys: Cart['checkout_keys'] = [];
    for (let i = 0; i < MAX_REMEMBERED_KEYS + 5; i++) keys = rememberKey(keys, `k${i}`, `c${i}`);
    keys = rememberKey(keys, 'k10', 'c10');
    expect(keys).toHaveLength(MAX_REMEMBERED_KEYS);
    expect(keys.at(-1)).toEqual(['k10', 'c10']);
    expect(checkoutOfKey(cart({ checkout_keys: keys }), 'k24')).toBe('c24');
    expect(checkoutOfKey(cart({ checkout_keys: keys }), 'k0')).toBeNull();
    expect(checkoutOfKey(cart({ checkout_keys: keys }), undefined)).toBeNull();
  });

  it('a cart belongs to its user, a guest cart to its session — and to nobody else', () => {
    const alice = { kind: 'user', userId: 'alice' } as const;
    const bob = { kind: 'user', userId: 'bob' } as const;
    const guestA = { kind: 'guest', sessionId: 's-a' } as const;
    const guestB = { kind: 'guest', sessionId: 's-b' } as const;
    const userCart = cart({ ...ownerColumns(alice) });
    const guestCart = cart({ ...ownerColumns(guestA) });
    expect(ownerColumns(alice)).toEqual({ user_id: 'alice', session_id: null });
    expect(ownerColumns(guestA)).toEqual({ user_id: null, session_id: 's-a' });
    expect([isOwnedBy(userCart, alice), isOwnedBy(userCart, bob), isOwnedBy(userCart, guestA)]).toEqual([
      true,
      false,
      false,
    ]);
    expect([isOwnedBy(guestCart, guestA), isOwnedBy(guestCart, guestB), isOwnedBy(guestCart, alice)]).toEqual(
      [true, false, false],
    );
    // A user cart that also carries a session (written before ADR 0007) is not the session's.
    expect(isOwnedBy(cart({ user_id: 'alice', session_id: 's-a' }), guestA)).toBe(false);
    // A user whose id looks like a session id owns nothing of the session's.
    expect(isOwnedBy(guestCart, { kind: 'user', userId: 's-a' })).toBe(false);
  });
});

describe('lookup rows (ADR 0060, the write path of a checkout)', () => {
  const TTL = 7 * 86_400;
  const active = newCart({ cart_id: 'c', user_id: 'u', session_id: null, zone: 'MSK' }, t0, TTL);
  const after = (ms: number) => new Date(t0.getTime() + ms);

  it('lists a cart checking out under its active row, every other status under its own; a listing of checking_out also reads the old partition', () => {
    expect(listedUnder('checking_out')).toBe('active');
    for (const s of ['active', 'ordered', 'abandoned', 'merging', 'merged'] as const) expect(listedUnder(s)).toBe(s);
    expect(lookupPartitionsOf('checking_out')).toEqual(['active', 'checking_out']);
    expect(lookupPartitionsOf('ordered')).toEqual(['ordered']);
  });

  it('a checkout within the margin of the last change writes no lookup row; a late checkout and every other change do', () => {
    const margin = lookupMarginSeconds(TTL) * 1000;
    expect(margin).toBe(3_600_000);
    const checkout = (ms: number) => touched(active, { status: 'checking_out' }, after(ms), TTL);
    expect(lookupWriteNeeded(active, checkout(margin), TTL)).toBe(false);
    expect(lookupWriteNeeded(active, checkout(margin + 1), TTL)).toBe(true);
    const co = checkout(1000);
    expect(lookupWriteNeeded(co, touched(co, { status: 'ordered' }, after(2000), TTL), TTL)).toBe(true);
    expect(lookupWriteNeeded(co, touched(co, { status: 'active', checkout: null }, after(2000), TTL), TTL)).toBe(true);
    expect(lookupWriteNeeded(co, touched(co, { checkout_keys: [] }, after(2000), TTL), TTL)).toBe(true);
    expect(lookupWriteNeeded(active, touched(active, { items: {} }, after(1), TTL), TTL)).toBe(true);
  });

  it('the margin never exceeds the cart TTL (short test TTLs)', () => {
    expect(lookupMarginSeconds(3)).toBe(3);
  });
});
