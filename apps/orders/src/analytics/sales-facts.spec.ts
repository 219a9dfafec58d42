import fc from 'fast-check';
import {
  cellUpdates,
  CellUpdate,
  Fact,
  factsOf,
  mergeCellUpdates,
  reasonBucket,
  SalesOrder,
  UNCATEGORIZED,
} from './sales-facts';

const CAT_A = '5eed000000000000000000A1'; // upper case on purpose: categories are counted lower-case
const CAT_B = '5eed000000000000000000b2';
const P1 = '5eed00000000000000000401';
const P2 = '5eed00000000000000000402';
const P3 = '5eed00000000000000000403';

const confirmedHistory = [
  { to: 'AWAITING_PAYMENT' },
  { to: 'AWAITING_PAYMENT' },
  { to: 'COMMITTING' },
  { to: 'CONFIRMED' },
];

function order(saga: Partial<SalesOrder['saga']> = {}, items?: SalesOrder['items']): SalesOrder {
  return {
    _id: 'o1',
    zone: 'SPB',
    order_date: new Date('2026-11-30T22:15:00.000Z'),
    items: items ?? [
      { product_id: P1, name: 'Смартфон', category_id: CAT_A, price: 1_999_900, qty: 1 },
      { product_id: P2, name: 'Чехол', category_id: CAT_B, price: 99_000, qty: 2 },
      { product_id: P3, name: 'Кабель', price: 45_050, qty: 3 },
      { product_id: P1, name: 'Смартфон', category_id: CAT_A, price: 1_999_900, qty: 1 },
    ],
    saga: { state: 'AWAITING_STOCK', reason: null, history: [], ...saga },
  };
}

const cell = (updates: CellUpdate[], id: string) => updates.find((u) => u.id === id);

describe('sales facts of an order', () => {
  it('a pending order is placed, nothing else', () => {
    expect(factsOf(order())).toEqual(['placed']);
    expect(factsOf(order({ state: 'COMMITTING', history: confirmedHistory.slice(0, 3) }))).toEqual([
      'placed',
    ]);
  });

  it('confirmed, delivering and completed orders are sold', () => {
    for (const state of ['CONFIRMED', 'DELIVERING', 'COMPLETED']) {
      const history = [
        ...confirmedHistory,
        ...(state === 'CONFIRMED' ? [] : [{ to: 'DELIVERING' }]),
        ...(state === 'COMPLETED' ? [{ to: 'COMPLETED' }] : []),
      ];
      expect(factsOf(order({ state, history }))).toEqual(['placed', 'sold']);
    }
  });

  it('a cancellation before confirmation is a cancellation with its reason, never a sale', () => {
    const o = order({
      state: 'CANCELLED',
      reason: 'PAYMENT_DECLINED',
      history: [{ to: 'AWAITING_PAYMENT' }, { to: 'CANCELLED' }],
    });
    expect(factsOf(o)).toEqual(['placed', 'cancelled']);
    // committed while the customer's cancel was pending: it never became CONFIRMED, so it never sold
    const committedThenCancelled = order({
      state: 'CANCELLED',
      reason: 'CANCELLED_BY_USER',
      history: [...confirmedHistory.slice(0, 3), { to: 'CANCELLING' }, { to: 'CANCELLED' }],
    });
    expect(factsOf(committedThenCancelled)).toEqual(['placed', 'cancelled']);
  });

  it('a cancellation after confirmation reverses the sale — once it is CANCELLED, not while CANCELLING', () => {
    const cancelling = order({
      state: 'CANCELLING',
      reason: 'CANCELLED_BY_USER',
      history: [...confirmedHistory, { to: 'CANCELLING' }],
    });
    expect(factsOf(cancelling)).toEqual(['placed', 'sold']);
    const cancelled = order({
      state: 'CANCELLED',
      reason: 'CANCELLED_BY_USER',
      history: [...confirmedHistory, { to: 'CANCELLING' }, { to: 'CANCELLED' }],
    });
    expect(factsOf(cancelled)).toEqual(['placed', 'sold', 'cancelled', 'sale_reversed']);
  });

  it('counts reasons of the contract and anything else as OTHER', () => {
    expect(reasonBucket('STOCK_DEADLINE_EXCEEDED')).toBe('STOCK_DEADLINE_EXCEEDED');
    expect(reasonBucket('CANCELLED_BY_USER')).toBe('CANCELLED_BY_USER');
    expect(reasonBucket('LOST_IN_SPACE')).toBe('OTHER');
    expect(reasonBucket(null)).toBe('OTHER');
  });
});

describe('counter updates of sales facts', () => {
  it('placing counts on the UTC day of order_date in the zone', () => {
    expect(cellUpdates(order(), ['placed'])).toEqual([
      { table: 'days', id: '2026-11-30|SPB', keys: { day: '2026-11-30', zone: 'SPB' }, inc: { placed: 1 } },
    ]);
  });

  it('a sale adds revenue and units per day, category (lower-case, uncategorized) and product (per day and per month); an order counts once per cell', () => {
    const u = cellUpdates(order(), ['sold']);
    expect(cell(u, '2026-11-30|SPB')).toEqual({
      table: 'days',
      id: '2026-11-30|SPB',
      keys: { day: '2026-11-30', zone: 'SPB' },
      inc: { orders: 1, revenue: 2 * 1_999_900 + 2 * 99_000 + 3 * 45_050, units: 7 },
    });
    expect(cell(u, '2026-11-30|SPB|5eed000000000000000000a1')?.inc).toEqual({
      orders: 1,
      revenue: 3_999_800,
      units: 2,
    });
    expect(cell(u, '2026-11-30|SPB|5eed000000000000000000b2')?.inc).toEqual({
      orders: 1,
      revenue: 198_000,
      units: 2,
    });
    expect(cell(u, `2026-11-30|SPB|${UNCATEGORIZED}`)).toEqual({
      table: 'categories',
      id: '2026-11-30|SPB|uncategorized',
      keys: { day: '2026-11-30', zone: 'SPB', category_id: 'uncategorized' },
      inc: { orders: 1, revenue: 135_150, units: 3 },
    });
    expect(cell(u, `D:2026-11-30|SPB|5eed000000000000000000a1|${P1}`)).toEqual({
      table: 'products',
      id: `D:2026-11-30|SPB|5eed000000000000000000a1|${P1}`,
      keys: { period: 'D:2026-11-30', zone: 'SPB', category_id: '5eed000000000000000000a1', product_id: P1 },
      inc: { orders: 1, revenue: 3_999_800, units: 2 },
      set: { name: 'Смартфон' },
    });
    expect(cell(u, `M:2026-11|SPB|5eed000000000000000000a1|${P1}`)?.inc).toEqual({
      orders: 1,
      revenue: 3_999_800,
      units: 2,
    });
    expect(cell(u, `M:2026-11|SPB|${UNCATEGORIZED}|${P3}`)?.inc).toEqual({
      orders: 1,
      revenue: 135_150,
      units: 3,
    });
    expect(u).toHaveLength(1 + 3 + 3 * 2);
  });

  it('a cancellation counts the reason on the day the order was placed', () => {
    const o = order({ state: 'CANCELLED', reason: 'STOCK_REJECTED' });
    expect(cellUpdates(o, ['cancelled'])).toEqual([
      {
        table: 'days',
        id: '2026-11-30|SPB',
        keys: { day: '2026-11-30', zone: 'SPB' },
        inc: { cancelled: 1, 'cancelled_by_reason.STOCK_REJECTED': 1 },
      },
    ]);
  });

  it('a reversed sale takes out exactly what the sale added', () => {
    const sold = cellUpdates(order(), ['sold']);
    const reversed = cellUpdates(order(), ['sale_reversed']);
    for (const s of sold) {
      const r = reversed.find((x) => x.id === s.id)!;
      const expected = Object.fromEntries(Object.entries(s.inc).map(([k, v]) => [k, -v]));
      expect(r.inc).toEqual(s.table === 'days' ? { ...expected, sales_reversed: 1 } : expected);
      expect(r.set).toBeUndefined(); // a reversal does not rename
    }
    expect(reversed).toHaveLength(sold.length);
  });

  it('an order first seen cancelled after confirmation changes only its day counters (sale and reversal cancel out)', () => {
    const o = order({
      state: 'CANCELLED',
      reason: 'CANCELLED_BY_USER',
      history: [...confirmedHistory, { to: 'CANCELLING' }, { to: 'CANCELLED' }],
    });
    expect(cellUpdates(o, factsOf(o))).toEqual([
      {
        table: 'days',
        id: '2026-11-30|SPB',
        keys: { day: '2026-11-30', zone: 'SPB' },
        inc: {
          placed: 1,
          orders: 0,
          revenue: 0,
          units: 0,
          cancelled: 1,
          'cancelled_by_reason.CANCELLED_BY_USER': 1,
          sales_reversed: 1,
        },
      },
    ]);
  });
});

/**
 * The convergence the read model relies on: the consumer sees snapshots of the order (one per
 * event it handles, each read when handled), duplicated and in any order, and applies each fact
 * it finds not yet applied (the markers). Whatever it saw, once it has seen the final state the
 * counters equal those of the final state's facts applied once.
 */
describe('applying the facts not yet applied converges', () => {
  const lifecycles: SalesOrder['saga'][][] = [
    [
      { state: 'AWAITING_STOCK', reason: null, history: [] },
      { state: 'CONFIRMED', reason: null, history: confirmedHistory },
      { state: 'DELIVERING', reason: null, history: [...confirmedHistory, { to: 'DELIVERING' }] },
      {
        state: 'COMPLETED',
        reason: null,
        history: [...confirmedHistory, { to: 'DELIVERING' }, { to: 'COMPLETED' }],
      },
    ],
    [
      { state: 'AWAITING_STOCK', reason: null, history: [] },
      { state: 'CONFIRMED', reason: null, history: confirmedHistory },
      {
        state: 'CANCELLING',
        reason: 'CANCELLED_BY_USER',
        history: [...confirmedHistory, { to: 'CANCELLING' }],
      },
      {
        state: 'CANCELLED',
        reason: 'CANCELLED_BY_USER',
        history: [...confirmedHistory, { to: 'CANCELLING' }, { to: 'CANCELLED' }],
      },
    ],
    [
      { state: 'AWAITING_STOCK', reason: null, history: [] },
      { state: 'CANCELLED', reason: 'STOCK_REJECTED', history: [{ to: 'CANCELLED' }] },
    ],
  ];

  const totals = (updates: CellUpdate[]): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const u of updates)
      for (const [k, v] of Object.entries(u.inc))
        if (v !== 0) out[`${u.id}.${k}`] = (out[`${u.id}.${k}`] ?? 0) + v;
    return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== 0));
  };

  it('for any duplicated, reordered sequence of snapshots that includes the final one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: lifecycles.length - 1 }).chain((l) =>
          fc.record({
            l: fc.constant(l),
            seen: fc.array(fc.integer({ min: 0, max: lifecycles[l]!.length - 1 }), { maxLength: 12 }),
            finalAt: fc.nat(),
          }),
        ),
        ({ l, seen, finalAt }) => {
          const life = lifecycles[l]!;
          const last = life.length - 1;
          const sequence = [...seen];
          sequence.splice(finalAt % (sequence.length + 1), 0, last);
          const applied = new Set<Fact>();
          const updates: CellUpdate[] = [];
          for (const i of sequence) {
            const snapshot = order(life[i]);
            const todo = factsOf(snapshot).filter((f) => !applied.has(f));
            todo.forEach((f) => applied.add(f));
            updates.push(...cellUpdates(snapshot, todo));
          }
          const final = order(life[last]);
          expect(totals(updates)).toEqual(totals(cellUpdates(final, factsOf(final))));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('group commit: updates of several orders merged per counter document', () => {
  it('sums every counter of the same document, keeps the last name, drops documents that add up to zero, and equals applying each in turn', () => {
    const sold = { state: 'CONFIRMED' as const, reason: null, history: confirmedHistory };
    const a = cellUpdates(order(sold), ['placed', 'sold']);
    const b = cellUpdates({ ...order(sold), _id: 'o2' }, ['placed', 'sold']);
    const reversed = cellUpdates(order({ state: 'CANCELLED', reason: 'CANCELLED_BY_USER', history: [] }), ['sale_reversed']);
    const merged = mergeCellUpdates([...a, ...b, ...reversed]);
    // one update per document
    expect(new Set(merged.map((u) => `${u.table}/${u.id}`)).size).toBe(merged.length);
    const sum = (updates: readonly CellUpdate[]) => {
      const out: Record<string, number> = {};
      for (const u of updates) for (const [k, v] of Object.entries(u.inc)) out[`${u.table}/${u.id}.${k}`] = (out[`${u.table}/${u.id}.${k}`] ?? 0) + v;
      return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== 0));
    };
    expect(sum(merged)).toEqual(sum([...a, ...b, ...reversed]));
    const day = merged.find((u) => u.table === 'days');
    expect(day?.inc).toMatchObject({ placed: 2, orders: 1, sales_reversed: 1 });
    // a sale and its reversal of the same product: the product documents add up to zero and are left out
    expect(mergeCellUpdates([...a, ...reversed]).filter((u) => u.table === 'products')).toEqual([]);
  });
});
