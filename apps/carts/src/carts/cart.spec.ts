import { canEditItems, statusAfterOrder, withTotal } from './cart';

describe('cart rules', () => {
  it('totals lines in minor units', () => {
    const view = withTotal({
      cart_id: 'c', user_id: null, session_id: 's', zone: 'MSK', status: 'active', created_at: new Date(), updated_at: new Date(),
      items: { a: { name: 'A', qty: 3, unit_price: 1999 }, b: { name: 'B', qty: 1, unit_price: 1 } },
    });
    expect(view.total).toBe(5998);
  });

  it('maps order outcomes to cart status', () => {
    expect(statusAfterOrder('OrderConfirmed')).toBe('ordered');
    expect(statusAfterOrder('OrderCancelled')).toBe('active');
  });

  it('allows edits only on active carts', () => {
    expect(canEditItems('active')).toBe(true);
    expect(canEditItems('checking_out')).toBe(false);
    expect(canEditItems('ordered')).toBe(false);
  });
});
