import { randomUUID } from 'node:crypto';
import { uniqueName } from '@mw/testing';
import { Order, orderFromCheckout } from '../orders/order';
import type { SagaTimeouts } from '../saga/saga';

/** A new order of one phone in MSK for a user of its own, as a checkout makes it (its saga waits for stock). */
export function newTestOrder(timeouts: SagaTimeouts): Order {
  const decision = orderFromCheckout(
    {
      checkout_id: randomUUID(),
      cart_id: randomUUID(),
      user_id: uniqueName('u'),
      zone: 'MSK',
      currency: 'RUB',
      lines: [{ product_id: '65f000000000000000000001', name: 'Phone', qty: 1, unit_price: 1000 }],
      total: 1000,
    },
    ['MSK'],
    new Date(),
    timeouts,
    randomUUID(),
  );
  if (!decision.ok) throw new Error(decision.message);
  return decision.order;
}
