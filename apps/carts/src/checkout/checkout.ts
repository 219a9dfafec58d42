/**
 * Checkout rules, free of framework and driver code: pricing a cart from the carts' product table,
 * and what the outbox relay does with an intent (ADR 0060).
 */
import type { Cart, CheckoutSnapshot } from '../carts/cart';
import { afterUnappliedLwt, intentDue } from '../carts/intent-age';
import type { PricedProduct } from '../products/product';

export type CheckoutRefusal =
  | { readonly code: 'CARTS.EMPTY_CART'; readonly field: 'items' }
  | { readonly code: 'CARTS.TOO_MANY_LINES'; readonly field: 'items'; readonly max: number }
  | { readonly code: 'CARTS.PRODUCT_UNAVAILABLE'; readonly field: `items.${string}` }
  | { readonly code: 'CARTS.USER_REQUIRED'; readonly field: 'user_id' }
  | { readonly code: 'CARTS.UNKNOWN_ZONE'; readonly field: 'zone' }
  | { readonly code: 'CARTS.NOT_CHECKOUTABLE'; readonly field: 'status' };

export type Priced = { readonly ok: true; readonly lines: CheckoutSnapshot['lines']; readonly total: number } | { readonly ok: false; readonly refusals: readonly CheckoutRefusal[] };

/**
 * The lines of a checkout, each at the catalog's current price (never a price a client sent).
 * Refuses an empty cart, too many lines, a product the catalog no longer has, a guest cart (the
 * order belongs to a user) and a zone no longer served.
 */
export function priceCheckout(cart: Cart, products: ReadonlyMap<string, PricedProduct>, rules: { readonly zones: readonly string[]; readonly maxLines: number }): Priced {
  const refusals: CheckoutRefusal[] = [];
  if (cart.status !== 'active') refusals.push({ code: 'CARTS.NOT_CHECKOUTABLE', field: 'status' });
  const ids = Object.keys(cart.items).sort();
  if (ids.length === 0) refusals.push({ code: 'CARTS.EMPTY_CART', field: 'items' });
  if (ids.length > rules.maxLines) refusals.push({ code: 'CARTS.TOO_MANY_LINES', field: 'items', max: rules.maxLines });
  if (!cart.user_id) refusals.push({ code: 'CARTS.USER_REQUIRED', field: 'user_id' });
  if (!rules.zones.includes(cart.zone)) refusals.push({ code: 'CARTS.UNKNOWN_ZONE', field: 'zone' });
  const lines: CheckoutSnapshot['lines'][number][] = [];
  for (const id of ids) {
    const p = products.get(id);
    const qty = cart.items[id]?.qty ?? 0;
    if (!p) refusals.push({ code: 'CARTS.PRODUCT_UNAVAILABLE', field: `items.${id}` });
    else lines.push({ product_id: id, name: p.name, category_id: p.category_id, qty, unit_price: p.price });
  }
  if (refusals.length > 0) return { ok: false, refusals };
  return { ok: true, lines, total: lines.reduce((sum, l) => sum + l.qty * l.unit_price, 0) };
}

export interface Intent {
  readonly bucket: number;
  readonly created_at: Date;
  readonly checkout_id: string;
  readonly cart_id: string;
}

export type IntentDecision = 'publish' | 'wait' | 'fence' | 'discard';

/**
 * What the relay does with an outbox intent, given the cart as a SERIAL read sees it:
 * - the cart is on the intent's checkout → the LWT applied: publish (again, at worst; orders
 *   derives the order id from the checkout id, so a duplicate creates nothing);
 * - otherwise, while the LWT may still be in flight (younger than the grace period) → wait;
 * - after the grace period, a cart still active → fence: move the cart past the revision the LWT
 *   was read at (`CartsRepository.fence`), then discard. The grace is a guess, not a bound: a
 *   request can stall between its intent and its LWT, and an LWT can apply after its client timed
 *   out; once fenced, that LWT finds another revision and fails, and its request starts over;
 * - after the grace period, a cart in any other state (or gone) → discard: the LWT needs the
 *   revision it read, when the cart was active, and a revision is never written twice.
 */
export function decideIntent(intent: Intent, cart: Cart | null, now: Date, graceMs: number): IntentDecision {
  if (cart?.checkout?.checkout_id === intent.checkout_id) return 'publish';
  const next = afterUnappliedLwt(intent.created_at, cart, now, graceMs);
  return next === 'drop' ? 'discard' : next;
}

/** Intents younger than `minAgeMs` are left to the request that wrote them (it publishes itself). */
export function dueForRelay(intent: Intent, now: Date, minAgeMs: number): boolean {
  return intentDue(intent.created_at, now, minAgeMs);
}

/** Stable outbox partition of a checkout: FNV-1a of its id, finished with murmur3's fmix32 so low bits mix. */
export function bucketOf(checkoutId: string, buckets: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < checkoutId.length; i++) {
    h ^= checkoutId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) % buckets;
}

/** Idempotency-Key: an opaque client token; anything else is refused rather than stored. */
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;
