import { HopClock } from '../bench/hops';

/** bench:checkout's latency by hop: each checkout's messages joined by cart or order, timed by their CreateTime. */
describe('HopClock', () => {
  const cart = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
  const order = (n: number) => `65f00000000000000000000${n}`;

  it('splits a confirmed checkout into its hops, whichever id each message names and in whatever order they arrive', () => {
    const hops = new HopClock();
    // the commands and events topics name the order only, and may be seen before the order's first event
    hops.saw('StockReserved', { order_id: order(1) }, 1_450);
    hops.saw('ReserveStock', { order_id: order(1), zone: 'MSK' }, 1_300);
    hops.saw('CheckoutRequested', { cart_id: cart(1), checkout_id: 'x' }, 1_100);
    hops.saw('OrderCreated', { order_id: order(1), cart_id: cart(1) }, 1_290);
    hops.saw('StockLevelChanged', { product_id: 'p' }, 1_500); // not a hop: ignored
    hops.saw('OrderConfirmed', { order_id: order(1), cart_id: cart(1) }, 1_900);
    hops.saw('ReserveStock', { order_id: order(1), zone: 'MSK' }, 5_000); // a redelivery keeps the first time
    expect(hops.breakdown([{ cartId: cart(1), sentAt: 1_000, seenAt: 1_950 }])).toEqual({
      checkouts: 1,
      carts: { p50: 100, p99: 100 },
      orders_place: { p50: 200, p99: 200 },
      inventory_reserve: { p50: 150, p99: 150 },
      orders_pay_confirm: { p50: 450, p99: 450 },
      to_observer: { p50: 50, p99: 50 },
    });
  });

  it('leaves out a checkout with a hop not seen', () => {
    const hops = new HopClock();
    hops.saw('CheckoutRequested', { cart_id: cart(2) }, 10);
    hops.saw('OrderConfirmed', { order_id: order(2), cart_id: cart(2) }, 90);
    expect(hops.breakdown([{ cartId: cart(2), sentAt: 0, seenAt: 100 }])).toEqual({ checkouts: 0 });
  });
});
