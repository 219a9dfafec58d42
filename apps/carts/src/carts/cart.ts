/**
 * Cart rules, free of framework and driver code. A cart is written whole on every change (one row,
 * one TTL, guarded by its revision), so every cell of a cart expires at the same moment (ADR 0060).
 */
export type CartStatus = 'active' | 'checking_out' | 'ordered' | 'abandoned' | 'merging' | 'merged';

/** Largest quantity of one line (PUT and the merge's sums alike). */
export const MAX_LINE_QTY = 99;

/** Who a cart belongs to: a signed-in user (the token's subject) or a guest session. */
export type CartOwner =
  { readonly kind: 'user'; readonly userId: string } | { readonly kind: 'guest'; readonly sessionId: string };

export interface CartLine {
  /** Catalog name and price when the line was last put; the view and checkout use current catalog prices. */
  readonly name: string;
  readonly qty: number;
  readonly unit_price: number;
}

/** The priced lines a checkout took, as published in CheckoutRequested (minor units). */
export interface CheckoutSnapshot {
  readonly checkout_id: string;
  /** When the checkout was requested (ISO); the time of its activity event. Absent on checkouts taken before ADR 0061. */
  readonly requested_at?: string | undefined;
  readonly lines: readonly {
    readonly product_id: string;
    readonly name: string;
    readonly category_id?: string | undefined;
    readonly qty: number;
    readonly unit_price: number;
  }[];
  readonly total: number;
}

export interface Cart {
  readonly cart_id: string;
  readonly user_id: string | null;
  readonly session_id: string | null;
  readonly zone: string;
  readonly status: CartStatus;
  readonly items: Readonly<Record<string, CartLine>>;
  readonly created_at: Date;
  readonly updated_at: Date;
  /** updated_at + the cart TTL: the moment every cell of the cart (and its lookup rows) expires. */
  readonly expires_at: Date;
  /** Incremented by every write; each write is `IF revision = <read revision>` (null for carts written before 0060). */
  readonly revision: number | null;
  /** The checkout the cart is on (checking_out, ordered); null while active. */
  readonly checkout: CheckoutSnapshot | null;
  /** [Idempotency-Key, checkout_id] of the checkouts requested with a key, oldest first (the latest few). */
  readonly checkout_keys: readonly (readonly [string, string])[];
  /** On a guest cart being merged (`merging`) or merged (`merged`) into a user's cart: where and for whom. */
  readonly merge: GuestMerge | null;
  /** On a user cart: the guest carts merged into it (the merge's idempotency record), oldest first. */
  readonly merged_from: readonly MergeRecord[];
}

/** A line of a guest cart the merge could not take. */
export interface DroppedLine {
  readonly product_id: string;
  /** PRODUCT_UNAVAILABLE: the catalog no longer sells it; TOO_MANY_LINES: the user's cart was full. */
  readonly reason: 'PRODUCT_UNAVAILABLE' | 'TOO_MANY_LINES';
}

/** The merge of a guest cart, recorded on the guest cart BEFORE the user's cart is written (the intent). */
export interface GuestMerge {
  readonly into_cart_id: string;
  readonly user_id: string;
  /** ISO time the intent was recorded; also the key of its row in merge_intents. */
  readonly started_at: string;
  /** ISO time the lines reached the user's cart; null while merging. */
  readonly merged_at: string | null;
  readonly dropped: readonly DroppedLine[];
}

/** On the user's cart: this guest cart's lines are in (written in the same LWT as the lines). */
export interface MergeRecord {
  readonly guest_cart_id: string;
  readonly merged_at: string;
  readonly dropped: readonly DroppedLine[];
}

/** How many Idempotency-Keys a cart remembers. */
export const MAX_REMEMBERED_KEYS = 20;

export function newCart(
  input: { cart_id: string; user_id: string | null; session_id: string | null; zone: string },
  now: Date,
  ttlSeconds: number,
): Cart {
  return {
    ...input,
    status: 'active',
    items: {},
    created_at: now,
    updated_at: now,
    expires_at: expiry(now, ttlSeconds),
    revision: 1,
    checkout: null,
    checkout_keys: [],
    merge: null,
    merged_from: [],
  };
}

export const expiry = (now: Date, ttlSeconds: number): Date => new Date(now.getTime() + ttlSeconds * 1000);

/** The next state of a cart after a change: touched (new expiry) and one revision on. */
export function touched(
  cart: Cart,
  change: Partial<Pick<Cart, 'status' | 'items' | 'checkout' | 'checkout_keys' | 'merge' | 'merged_from'>>,
  now: Date,
  ttlSeconds: number,
): Cart {
  return {
    ...cart,
    ...change,
    updated_at: now,
    expires_at: expiry(now, ttlSeconds),
    revision: (cart.revision ?? 0) + 1,
  };
}

/**
 * The lookup partition (`carts_by_*_status`) a cart in `status` is listed under (ADR 0060, "The
 * write path of a checkout"): a cart checking out stays under the row it had while active, so
 * neither a checkout nor a reopen moves it between partitions. Listings verify each cart's status.
 */
export function listedUnder(status: CartStatus): CartStatus {
  return status === 'checking_out' ? 'active' : status;
}

/** The lookup partitions a listing of `status` reads: its group's, and its own where rows written before the grouping may remain. */
export function lookupPartitionsOf(status: CartStatus): CartStatus[] {
  const group = listedUnder(status);
  return group === status ? [status] : [group, status];
}

/** Lookup rows live this much longer than their cart (TTL), so a write right after the last one need not rewrite them. */
export function lookupMarginSeconds(cartTtlSeconds: number): number {
  return Math.min(3600, cartTtlSeconds);
}

/**
 * Whether writing `next` over `read` must write the lookup row of next's group: always, except a
 * checkout soon after the cart's last change. An active cart's row was written by the write that
 * produced it, with the cart's TTL plus the margin, so it outlives the checked-out cart when the
 * checkout comes within the margin.
 */
export function lookupWriteNeeded(read: Cart, next: Cart, cartTtlSeconds: number): boolean {
  if (listedUnder(read.status) !== listedUnder(next.status)) return true;
  if (read.status !== 'active' || next.status !== 'checking_out') return true;
  return next.updated_at.getTime() - read.updated_at.getTime() > lookupMarginSeconds(cartTtlSeconds) * 1000;
}

/** A cart read before Cassandra dropped it (TTL is whole seconds) is expired all the same. */
export function isExpired(cart: Cart, now: Date): boolean {
  return cart.expires_at.getTime() <= now.getTime();
}

/**
 * Whether a cart belongs to the caller: a user cart to its user, a guest cart to its session. A
 * cart somebody else owns is answered exactly like a missing one (ADR 0007: a 403 would leak it).
 */
export function isOwnedBy(cart: Cart, owner: CartOwner): boolean {
  switch (owner.kind) {
    case 'user':
      return cart.user_id === owner.userId;
    case 'guest':
      return cart.user_id === null && cart.session_id === owner.sessionId;
  }
}

/** The owner columns of a new cart. */
export function ownerColumns(owner: CartOwner): { user_id: string | null; session_id: string | null } {
  switch (owner.kind) {
    case 'user':
      return { user_id: owner.userId, session_id: null };
    case 'guest':
      return { user_id: null, session_id: owner.sessionId };
  }
}

/** Items may change only while the cart is active. */
export function canEditItems(status: CartStatus): boolean {
  return status === 'active';
}

export type PutLineRefusal =
  { readonly code: 'CARTS.NOT_EDITABLE' } | { readonly code: 'CARTS.TOO_MANY_LINES'; readonly max: number };

/** Sets one line; refuses edits outside `active` and a new line beyond the limit. */
export function putLine(
  cart: Cart,
  productId: string,
  line: CartLine,
  maxLines: number,
): { ok: true; items: Record<string, CartLine> } | { ok: false; refusal: PutLineRefusal } {
  if (!canEditItems(cart.status)) return { ok: false, refusal: { code: 'CARTS.NOT_EDITABLE' } };
  if (!(productId in cart.items) && Object.keys(cart.items).length >= maxLines) {
    return { ok: false, refusal: { code: 'CARTS.TOO_MANY_LINES', max: maxLines } };
  }
  return { ok: true, items: { ...cart.items, [productId]: line } };
}

export function withoutLine(cart: Cart, productId: string): Record<string, CartLine> {
  const items = { ...cart.items };
  delete items[productId];
  return items;
}

/**
 * What an order event of `orders.orders.v1` says about the checkout that made it (only what the
 * cart rules read). `after_confirmation`: the customer cancelled an order that had been confirmed.
 */
export type OrderOutcome =
  | { readonly type: 'OrderConfirmed' }
  | { readonly type: 'OrderCancelled'; readonly after_confirmation: boolean }
  | { readonly type: 'OrderRejected' }
  | { readonly type: 'OrderDeliveryStarted' }
  | { readonly type: 'OrderCompleted' };

/**
 * Saga step 5. An outcome moves the cart only while it is checking out on that very checkout:
 * confirmed → ordered; cancelled or rejected → active again (the checkout is dropped). A cancel
 * *after confirmation* that overtook its OrderConfirmed ends the cart ordered too: the order was
 * confirmed, so the cart must not reopen. Delivery started and completed change no cart. Anything
 * else — another checkout's outcome, a replay, a late cancel after a confirm — changes nothing.
 */
export function statusAfterOutcome(cart: Cart, outcome: OrderOutcome, checkoutId: string): CartStatus | null {
  if (cart.status !== 'checking_out' || cart.checkout?.checkout_id !== checkoutId) return null;
  switch (outcome.type) {
    case 'OrderConfirmed':
      return 'ordered';
    case 'OrderCancelled':
      return outcome.after_confirmation ? 'ordered' : 'active';
    case 'OrderRejected':
      return 'active';
    case 'OrderDeliveryStarted':
    case 'OrderCompleted':
      return null;
  }
}

/** Remembers an Idempotency-Key, keeping only the latest MAX_REMEMBERED_KEYS. */
export function rememberKey(
  keys: Cart['checkout_keys'],
  key: string | undefined,
  checkoutId: string,
): Cart['checkout_keys'] {
  if (!key) return keys;
  return [...keys.filter(([k]) => k !== key), [key, checkoutId] as const].slice(-MAX_REMEMBERED_KEYS);
}

/** The checkout an Idempotency-Key was used for on this cart, if any. */
export function checkoutOfKey(cart: Cart, key: string | undefined): string | null {
  if (!key) return null;
  return cart.checkout_keys.find(([k]) => k === key)?.[1] ?? null;
}
