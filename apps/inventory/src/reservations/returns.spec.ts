import { ownerOfHold, ReservationDoc, settledAsOf } from './reservation';
import { decideReturn, nextReturnStep, unappliedReturns } from './returns';

const line = { product_id: '65f000000000000000000001', qty: 2 };

describe('what a ReturnStock does with the order', () => {
  it.each<
    [string, Pick<ReservationDoc, 'status' | 'pending' | 'tombstone'> | null, ReturnType<typeof decideReturn>]
  >([
    ['committed, sale applied: return it', { status: 'committed' }, { kind: 'return' }],
    [
      'committed, sale still being applied: finish the commit first',
      { status: 'committed', pending: 'commit' },
      { kind: 'finish-commit' },
    ],
    ['returned: answer again, move nothing', { status: 'returned' }, { kind: 'repeat' }],
    [
      'returned with its return interrupted: finish it, answer again',
      { status: 'returned', pending: 'return' },
      { kind: 'repeat' },
    ],
    [
      'reserving',
      { status: 'reserving' },
      { kind: 'fail', code: 'INVENTORY.NOT_COMMITTED', tombstone: false },
    ],
    ['reserved', { status: 'reserved' }, { kind: 'fail', code: 'INVENTORY.NOT_COMMITTED', tombstone: false }],
    ['released', { status: 'released' }, { kind: 'fail', code: 'INVENTORY.NOT_COMMITTED', tombstone: false }],
    [
      'expired',
      { status: 'expired', pending: 'undo' },
      { kind: 'fail', code: 'INVENTORY.NOT_COMMITTED', tombstone: false },
    ],
    ['rejected', { status: 'rejected' }, { kind: 'fail', code: 'INVENTORY.NOT_COMMITTED', tombstone: false }],
    [
      'unknown: a tombstone carries the answer',
      null,
      { kind: 'fail', code: 'INVENTORY.RESERVATION_NOT_FOUND', tombstone: true },
    ],
    [
      'a tombstone (never reserved here)',
      { status: 'released', tombstone: true },
      { kind: 'fail', code: 'INVENTORY.RESERVATION_NOT_FOUND', tombstone: false },
    ],
  ])('%s', (_name, doc, decision) => {
    expect(decideReturn(doc)).toEqual(decision);
  });
});

describe('a returned order stays closed', () => {
  const now = new Date('2026-11-22T10:00:00Z');
  const returned: ReservationDoc = {
    _id: line.product_id,
    zone: 'MSK',
    lines: [line],
    status: 'returned',
    expires_at: now,
    created_at: now,
    updated_at: now,
  };

  it('a hold found for it (a stale processor, the orphan pass) is given back, never sold', () => {
    expect(ownerOfHold(returned)).toBe('closed');
    expect(ownerOfHold({ status: 'returned', pending: 'return' })).toBe('closed');
  });
  it('the stock document remembers such a hold as returned; a stray hold of a sold order as committed', () => {
    expect(settledAsOf(returned)).toBe('returned');
    expect(settledAsOf({ status: 'committed' })).toBe('committed');
    expect(settledAsOf({ status: 'committed', pending: 'commit' })).toBeUndefined();
    expect(settledAsOf({ status: 'released' })).toBeUndefined();
    expect(settledAsOf(null)).toBeUndefined();
  });
});

describe('the next step of returning one line', () => {
  const stock = (marked: boolean, committed = 5, fence = 3) => ({ fence, marked, committed });

  it('the order records the line: done, dropping a mark left behind', () => {
    expect(nextReturnStep(line, stock(true), true)).toEqual({ step: 'done', dropMark: true });
    expect(nextReturnStep(line, stock(false), true)).toEqual({ step: 'done', dropMark: false });
  });
  it('the document has the mark but the order does not record it (crash between the two): record, never apply again', () => {
    expect(nextReturnStep(line, stock(true), false)).toEqual({ step: 'record' });
  });
  it('neither: apply, fenced by the fence just read', () => {
    expect(nextReturnStep(line, stock(false, 5, 7), false)).toEqual({ step: 'apply', fence: 7 });
  });
  it('the document does not hold the units (or does not exist): nothing moves, no counter goes negative', () => {
    expect(nextReturnStep(line, stock(false, 1), false)).toEqual({ step: 'unbacked' });
    expect(nextReturnStep(line, null, false)).toEqual({ step: 'unbacked' });
  });
});

describe('units of returns not yet applied to a document (the ledger check)', () => {
  it('counts a returned order only while neither the order records the line nor the document carries its mark', () => {
    const returning = [
      { order_id: 'a', qty: 2, recorded: false }, // not applied yet
      { order_id: 'b', qty: 3, recorded: false }, // applied: the document has its mark
      { order_id: 'c', qty: 4, recorded: true }, // applied and recorded
    ];
    expect(unappliedReturns(returning, new Set(['b']))).toBe(2);
    expect(unappliedReturns([], new Set())).toBe(0);
  });
});
