import { createHash } from 'node:crypto';

/**
 * The order a checkout becomes: orders derives its id from the checkout id (so a redelivered
 * CheckoutRequested maps to the same order and the unique `_id` makes the duplicate a no-op), and
 * carts names the same id in its checkout answer. Part of the carts → orders contract: changing it
 * is a breaking change of `carts.checkout.v1`.
 */
export function orderIdOfCheckout(checkoutId: string): string {
  return createHash('sha256').update(`order:${checkoutId}`).digest('hex').slice(0, 24);
}
