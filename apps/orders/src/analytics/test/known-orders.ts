import { HistoricItem, HistoricOutcome, HistoricOrderSpec } from '../demo/historic-orders';

/*
 * Twelve orders whose figures are computed by hand in analytics.int-spec.ts: three zones, two
 * categories and items without one, four UTC days (one order placed at 22:30 UTC, already the
 * next day in Moscow), every kind of ending. October is a whole month inside the full range, so
 * top products read its month cells.
 */

export const CAT_PHONES = 'c0000000000000000000000a';
export const CAT_TV = 'c0000000000000000000000b';
export const PHONE1 = 'f00000000000000000000001';
export const PHONE2 = 'f00000000000000000000002';
export const TV = 'f00000000000000000000003';
export const CABLE = 'f00000000000000000000004';

const ALICE = 'a11ce000-5eed-4000-8000-000000000001';
const BOB = 'b0b00000-5eed-4000-8000-000000000002';

const phone1 = (qty: number): HistoricItem => ({
  product_id: PHONE1,
  name: 'Смартфон Alpha',
  category_id: CAT_PHONES,
  price: 5_000_000,
  qty,
});
const phone2 = (qty: number): HistoricItem => ({
  product_id: PHONE2,
  name: 'Смартфон Beta',
  category_id: CAT_PHONES,
  price: 3_000_000,
  qty,
});
const tv = (qty: number): HistoricItem => ({
  product_id: TV,
  name: 'Телевизор 55"',
  category_id: CAT_TV,
  price: 8_000_000,
  qty,
});
/** Sold without a category: counted under `uncategorized`. */
const cable = (qty: number): HistoricItem => ({
  product_id: CABLE,
  name: 'Кабель USB-C',
  price: 50_000,
  qty,
});

const order = (
  n: number,
  zone: string,
  at: string,
  items: HistoricItem[],
  outcome: HistoricOutcome,
): HistoricOrderSpec => ({
  seed: `known-order-${n}`,
  userId: n % 2 === 0 ? BOB : ALICE,
  zone,
  at: new Date(at),
  items,
  outcome,
});

export const D1 = '2026-09-30';
export const D2 = '2026-10-01';
export const D3 = '2026-10-15';
export const D4 = '2026-11-01';

/** o7 as the test first writes it (confirmed); the test then cancels it (`O7_CANCELLED`). */
export const KNOWN_ORDERS: readonly HistoricOrderSpec[] = [
  order(1, 'MSK', `${D1}T22:30:00.000Z`, [phone1(1), cable(2)], { kind: 'completed' }),
  order(2, 'MSK', `${D2}T10:00:00.000Z`, [phone2(2)], { kind: 'delivering' }),
  order(3, 'MSK', `${D2}T11:00:00.000Z`, [tv(1), phone1(1)], { kind: 'confirmed' }),
  order(4, 'SPB', `${D2}T12:00:00.000Z`, [tv(1)], { kind: 'cancelled', reason: 'STOCK_REJECTED' }),
  order(5, 'SPB', `${D3}T09:00:00.000Z`, [phone2(1)], { kind: 'cancelled', reason: 'PAYMENT_DECLINED' }),
  order(6, 'EKB', `${D3}T10:00:00.000Z`, [cable(1)], {
    kind: 'cancelled',
    reason: 'STOCK_DEADLINE_EXCEEDED',
  }),
  order(7, 'MSK', `${D3}T13:00:00.000Z`, [phone1(1), tv(1)], { kind: 'confirmed' }),
  order(8, 'SPB', `${D3}T14:00:00.000Z`, [phone1(2), cable(1)], { kind: 'completed' }),
  order(9, 'EKB', `${D4}T08:00:00.000Z`, [tv(1)], { kind: 'completed' }),
  // still waiting for its payment: placed, not sold (a deadline far away, so the sweeper leaves it)
  order(10, 'EKB', `${D4}T09:00:00.000Z`, [phone2(1)], {
    kind: 'pending',
    deadline: new Date('2100-01-01T00:00:00.000Z'),
  }),
  order(11, 'MSK', `${D4}T10:00:00.000Z`, [phone2(1)], { kind: 'cancelled', reason: 'COMMIT_FAILED' }),
  order(12, 'SPB', `${D1}T12:00:00.000Z`, [cable(3)], {
    kind: 'cancelled',
    reason: 'PAYMENT_DEADLINE_EXCEEDED',
  }),
];

/** o7 after the customer cancelled it before delivery. */
export const O7_CANCELLED: HistoricOrderSpec = {
  ...KNOWN_ORDERS[6]!,
  outcome: { kind: 'cancelled_after_confirmation' },
};
