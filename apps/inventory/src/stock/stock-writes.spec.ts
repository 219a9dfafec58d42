import {
  decideStockTake,
  etagOf,
  IDEMPOTENCY_KEY,
  type RestockKey,
  restockReplay,
  STOCK_ETAG,
  versionOf,
} from './stock-writes';

const first: RestockKey = {
  key: 'delivery-0042',
  qty: 50,
  reason: 'delivery 2026-03-14',
  by: { sub: '57a40000-5eed-4000-8000-000000000004', role: 'stock_manager' },
  at: new Date('2026-03-14T09:00:00Z'),
  level: { available: 50, reserved: 0, committed: 0, version: 1 },
};

describe('stock writes: restock keys and stock-take versions', () => {
  it('a restock key seen before with the same request is a replay of the first answer', () => {
    expect(restockReplay([first], 'delivery-0042', { qty: 50, reason: 'delivery 2026-03-14' })).toEqual({
      kind: 'replay',
      first,
    });
  });

  it('the same key with another qty or reason is a reuse, never a second restock', () => {
    expect(restockReplay([first], 'delivery-0042', { qty: 5, reason: 'delivery 2026-03-14' })).toEqual({
      kind: 'reused',
      first,
    });
    expect(restockReplay([first], 'delivery-0042', { qty: 50, reason: 'another delivery' })).toEqual({
      kind: 'reused',
      first,
    });
  });

  it('an unknown key (or a document that remembers none) is a new restock', () => {
    expect(restockReplay([first], 'delivery-0043', { qty: 50, reason: 'delivery 2026-03-14' })).toEqual({
      kind: 'new',
    });
    expect(restockReplay(undefined, 'delivery-0042', { qty: 50, reason: 'x' })).toEqual({ kind: 'new' });
  });

  it('a stock-take applies only against the version it was counted on, moving available by the difference', () => {
    expect(decideStockTake({ version: 9, available: 44 }, 9, 42)).toEqual({ kind: 'apply', delta: -2 });
    expect(decideStockTake({ version: 0, available: 0 }, 0, 7)).toEqual({ kind: 'apply', delta: 7 });
  });

  it('a count made before a sale (or replayed after one) is stale, whatever the counts say', () => {
    // counted 44 at version 9; a reservation of 2 made it version 10 with 42 available: setting 44 would invent 2 units
    expect(decideStockTake({ version: 10, available: 42 }, 9, 44)).toEqual({ kind: 'stale', current: 10 });
    // even a count that happens to equal today's level: the precondition is the version, not the number
    expect(decideStockTake({ version: 10, available: 42 }, 9, 42)).toEqual({ kind: 'stale', current: 10 });
    expect(decideStockTake({ version: 3, available: 5 }, 0, 5)).toEqual({ kind: 'stale', current: 3 });
  });

  it('ETags are strong quoted versions; weak, listed or unquoted ones are not ours', () => {
    expect(etagOf(9)).toBe('"9"');
    expect(versionOf('"9"')).toBe(9);
    expect(versionOf(etagOf(0))).toBe(0);
    for (const bad of ['9', 'W/"9"', '"9", "10"', '"-1"', '"09"', '*', '""'])
      expect(STOCK_ETAG.test(bad)).toBe(false);
    expect(() => versionOf('W/"9"')).toThrow();
    expect(IDEMPOTENCY_KEY.test('delivery-2026-03-14:0042')).toBe(true);
    for (const bad of ['', 'a b', '$where', 'x'.repeat(129)]) expect(IDEMPOTENCY_KEY.test(bad)).toBe(false);
  });
});
