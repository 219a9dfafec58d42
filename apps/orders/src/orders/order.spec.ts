import { orderFromCheckout, orderIdFromCheckout, stockLinesOf } from './order';

const timeouts = { stockMs: 1000, paymentMs: 2000, commitMs: 3000, cancelMs: 4000 };

const checkout = {
  cart_id: '0b8f6f7e-1a2b-4c3d-8e9f-001122334455',
  checkout_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  user_id: 'user-1',
  zone: 'MSK',
  currency: 'RUB' as const,
  lines: [
    { product_id: '65f000000000000000000001', name: 'Смартфон', qty: 2, unit_price: 1999900 },
    { product_id: '65f000000000000000000002', name: 'Чехол', qty: 1, unit_price: 99000 },
  ],
  total: 2 * 1999900 + 99000,
};
const now = new Date('2026-11-21T10:00:00Z');

describe('order from checkout', () => {
  it('derives the same 24-hex order id from the same checkout, a different one otherwise', () => {
    expect(orderIdFromCheckout(checkout.checkout_id)).toMatch(/^[0-9a-f]{24}$/);
    expect(orderIdFromCheckout(checkout.checkout_id)).toBe(orderIdFromCheckout(checkout.checkout_id));
    expect(orderIdFromCheckout('other')).not.toBe(orderIdFromCheckout(checkout.checkout_id));
  });

  it('creates a pending order waiting for stock, with price snapshots and the total in minor units', () => {
    const d = orderFromCheckout(checkout, ['MSK', 'SPB'], now, timeouts, 'corr-1');
    expect(d.ok && d.order.status).toBe('pending');
    expect(d.ok && d.order.saga).toMatchObject({ state: 'AWAITING_STOCK', deadline: new Date(now.getTime() + 1000), history: [] });
    expect(d.ok && d.order.total).toBe(4098800);
    expect(d.ok && d.order.items[0]).toEqual({ product_id: '65f000000000000000000001', name: 'Смартфон', category_id: undefined, price: 1999900, qty: 2 });
  });

  it('refuses an unknown zone, naming the field', () => {
    expect(orderFromCheckout({ ...checkout, zone: 'NSK' }, ['MSK'], now, timeouts, 'c')).toMatchObject({ ok: false, code: 'ZONE_NOT_SERVED', field: 'zone' });
  });

  it('refuses a total that does not match the lines', () => {
    expect(orderFromCheckout({ ...checkout, total: 1 }, ['MSK'], now, timeouts, 'c')).toMatchObject({ ok: false, code: 'TOTAL_MISMATCH', field: 'total' });
  });

  it('reserves one line per product, quantities summed', () => {
    const items = [
      { product_id: 'a', name: 'x', price: 1, qty: 2 },
      { product_id: 'b', name: 'y', price: 1, qty: 1 },
      { product_id: 'a', name: 'x', price: 1, qty: 3 },
    ];
    expect(stockLinesOf(items)).toEqual([{ product_id: 'a', qty: 5 }, { product_id: 'b', qty: 1 }]);
  });
});
