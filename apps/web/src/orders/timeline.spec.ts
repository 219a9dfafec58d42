import { cancellable, type Order, pollInterval } from './timeline';

const order = (state: Order['state'], extra: Partial<Pick<Order, 'payment' | 'stock_return'>> = {}) => ({
  state,
  payment: {
    step: null,
    authorized: true,
    captured: true,
    reversed: null,
    reversal_round: 0,
    decline_code: null,
  },
  stock_return: null,
  ...extra,
});

describe('order page polling', () => {
  it('polls every second while the saga waits on stock, payment or a commit', () => {
    for (const s of ['AWAITING_STOCK', 'AWAITING_PAYMENT', 'COMMITTING', 'CANCELLING'] as const)
      expect(pollInterval(order(s))).toBe(1000);
  });

  it('stops once the order is over and nothing is still going back', () => {
    expect(pollInterval(order('CANCELLED'))).toBe(false);
    expect(pollInterval(order('COMPLETED'))).toBe(false);
  });

  it('keeps polling a cancelled order while the refund or the stock return is under way', () => {
    const refunding = order('CANCELLED', {
      payment: {
        step: 'REFUND',
        authorized: true,
        captured: true,
        reversed: null,
        reversal_round: 0,
        decline_code: null,
      },
    });
    expect(pollInterval(refunding)).toBe(1000);
    expect(pollInterval(order('CANCELLED', { stock_return: 'pending' }))).toBe(1000);
  });

  it('checks a confirmed order now and then (delivery or a cancel by support can still come)', () => {
    expect(pollInterval(order('CONFIRMED'))).toBe(10_000);
  });

  it('offers cancel only before delivery', () => {
    expect(cancellable({ status: 'confirmed' })).toBe(true);
    expect(cancellable({ status: 'delivering' })).toBe(false);
    expect(cancellable({ status: 'cancelled' })).toBe(false);
  });
});
