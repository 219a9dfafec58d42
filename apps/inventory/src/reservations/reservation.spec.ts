import {
  decideFailedCommit,
  grantedHoldSeconds,
  newReservation,
  ownerOfHold,
  rejectionCodeOf,
  ReservationDoc,
  resumedExpiry,
  validateReserve,
} from './reservation';

const limits = { zones: ['MSK', 'SPB'], maxLines: 3, maxQtyPerLine: 10 };
const p1 = '65f000000000000000000001';
const p2 = '65f000000000000000000002';
const ok = { zone: 'MSK', lines: [{ product_id: p1, qty: 2 }], hold_seconds: 60 };

describe('ReserveStock business rules', () => {
  it('accepts a command within the limits', () => {
    expect(validateReserve(ok, limits)).toBeNull();
  });

  it.each([
    ['unknown zone', { ...ok, zone: 'NSK' }, 'INVENTORY.UNKNOWN_ZONE'],
    ['no lines', { ...ok, lines: [] }, 'INVENTORY.INVALID_COMMAND'],
    [
      'too many lines',
      { ...ok, lines: [1, 2, 3, 4].map((n) => ({ product_id: `65f00000000000000000000${n}`, qty: 1 })) },
      'INVENTORY.TOO_MANY_LINES',
    ],
    ['zero qty', { ...ok, lines: [{ product_id: p1, qty: 0 }] }, 'INVENTORY.INVALID_COMMAND'],
    ['negative qty', { ...ok, lines: [{ product_id: p1, qty: -3 }] }, 'INVENTORY.INVALID_COMMAND'],
    ['fractional qty', { ...ok, lines: [{ product_id: p1, qty: 1.5 }] }, 'INVENTORY.INVALID_COMMAND'],
    ['qty as a string', { ...ok, lines: [{ product_id: p1, qty: '2' }] }, 'INVENTORY.INVALID_COMMAND'],
    ['qty above the limit', { ...ok, lines: [{ product_id: p1, qty: 11 }] }, 'INVENTORY.QTY_LIMIT_EXCEEDED'],
    ['malformed product id', { ...ok, lines: [{ product_id: 'abc', qty: 1 }] }, 'INVENTORY.INVALID_COMMAND'],
    [
      'operator in product id',
      { ...ok, lines: [{ product_id: { $gt: '' }, qty: 1 }] },
      'INVENTORY.INVALID_COMMAND',
    ],
    [
      'a product twice',
      {
        ...ok,
        lines: [
          { product_id: p1, qty: 1 },
          { product_id: p1.toUpperCase(), qty: 1 },
        ],
      },
      'INVENTORY.INVALID_COMMAND',
    ],
    ['hold out of range', { ...ok, hold_seconds: 0 }, 'INVENTORY.INVALID_COMMAND'],
  ])('rejects %s with a code', (_name, cmd, code) => {
    expect(validateReserve(cmd as never, limits)?.code).toBe(code);
  });

  it('stores lines sorted by product with lower-case ids so concurrent orders lock in the same order', () => {
    const doc = newReservation(
      {
        order_id: 'ABCDEF000000000000000001',
        zone: 'MSK',
        lines: [
          { product_id: p2, qty: 1 },
          { product_id: p1.toUpperCase(), qty: 2 },
        ],
      },
      new Date(1),
      new Date(0),
    );
    expect(doc._id).toBe('abcdef000000000000000001');
    expect(doc.lines.map((l) => l.product_id)).toEqual([p1, p2]);
    expect(doc.status).toBe('reserving');
  });

  it('rejects as unknown product when any short line has no stock document', () => {
    expect(rejectionCodeOf([{ product_id: p1, requested: 1, available: 0, unknown: true }])).toBe(
      'INVENTORY.UNKNOWN_PRODUCT',
    );
    expect(rejectionCodeOf([{ product_id: p1, requested: 5, available: 2, unknown: false }])).toBe(
      'INVENTORY.INSUFFICIENT_STOCK',
    );
  });
});

describe('how long a hold lasts', () => {
  it('is what ReserveStock asks, at most the service\'s own maximum: a day is clamped, a short hold kept', () => {
    const capped = { ...limits, maxHoldSeconds: 1800 };
    expect(grantedHoldSeconds(86_400, capped)).toBe(1800);
    expect(grantedHoldSeconds(1801, capped)).toBe(1800);
    expect(grantedHoldSeconds(900, capped)).toBe(900);
    expect(grantedHoldSeconds(86_400, limits)).toBe(86_400); // no maximum configured: the contract's bound
  });
});

describe('answer to a CommitStock that could not commit', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const doc = (
    status: ReservationDoc['status'],
    expiresAt = new Date(now.getTime() + 1000),
  ): ReservationDoc => ({
    _id: p1,
    zone: 'MSK',
    lines: [],
    status,
    expires_at: expiresAt,
    created_at: now,
    updated_at: now,
  });

  it('unknown order: a failure event with RESERVATION_NOT_FOUND, remembered by a tombstone', () => {
    expect(decideFailedCommit(null, now)).toEqual({
      kind: 'fail',
      code: 'INVENTORY.RESERVATION_NOT_FOUND',
      tombstone: true,
    });
  });
  it('released: RESERVATION_RELEASED, never a silent success', () => {
    expect(decideFailedCommit(doc('released'), now)).toMatchObject({
      kind: 'fail',
      code: 'INVENTORY.RESERVATION_RELEASED',
    });
  });
  it('expired: RESERVATION_EXPIRED', () => {
    expect(decideFailedCommit(doc('expired'), now)).toMatchObject({
      kind: 'fail',
      code: 'INVENTORY.RESERVATION_EXPIRED',
    });
  });
  it('reserved but past its expiry: expire first, then fail', () => {
    expect(decideFailedCommit(doc('reserved', new Date(now.getTime() - 1)), now)).toEqual({
      kind: 'expire-then-fail',
    });
  });
  it('already committed: a duplicate, no second answer', () => {
    expect(decideFailedCommit(doc('committed'), now)).toEqual({ kind: 'duplicate' });
  });
  it('committed and since returned: a duplicate too, never a second sale', () => {
    expect(decideFailedCommit(doc('returned'), now)).toEqual({ kind: 'duplicate' });
  });
  it('still reserving: retry later', () => {
    expect(decideFailedCommit(doc('reserving'), now)).toEqual({ kind: 'in-progress' });
  });
});

describe('resuming a reservation whose processor stopped', () => {
  const t0 = new Date('2026-11-22T10:00:00Z');
  const doc = newReservation(
    { order_id: p1, zone: 'MSK', lines: [{ product_id: p1, qty: 1 }] },
    new Date(t0.getTime() + 30_000),
    t0,
  );

  it('remembers the hold time the command asked for', () => {
    expect(doc.hold_ms).toBe(30_000);
  });

  it('gets a fresh expiry counted from the resume, never one already past', () => {
    const later = new Date(t0.getTime() + 60_000); // the first expiry passed 30 s ago
    expect(resumedExpiry(doc, later)).toEqual(new Date(later.getTime() + 30_000));
  });

  it('falls back to the span between claim and first expiry on documents without hold_ms', () => {
    const { hold_ms: _h, ...old } = doc;
    expect(resumedExpiry(old, new Date(t0.getTime() + 5_000))).toEqual(new Date(t0.getTime() + 35_000));
  });
});

describe('who owns a hold on a stock document', () => {
  it.each([
    ['no reservation', null, 'unknown'],
    ['reserving', { status: 'reserving' }, 'live'],
    ['reserved', { status: 'reserved' }, 'live'],
    ['committed, sale being applied', { status: 'committed', pending: 'commit' }, 'selling'],
    ['committed, sale applied', { status: 'committed' }, 'stray'],
    ['rejected', { status: 'rejected', pending: 'undo' }, 'closed'],
    ['released', { status: 'released' }, 'closed'],
    ['expired', { status: 'expired' }, 'closed'],
    ['returned (sold, then put back on sale)', { status: 'returned' }, 'closed'],
  ])('%s → %s', (_name, order, owner) => {
    expect(ownerOfHold(order as Pick<ReservationDoc, 'status' | 'pending'> | null)).toBe(owner);
  });
});
