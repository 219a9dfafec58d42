/**
 * Merging a guest cart into the user's cart on login: plain rules, no framework or driver code
 * (ADR 0060, "Guest sessions and the merge on login").
 *
 * The guest cart is the serialization point: one LWT moves it active → merging and records the
 * target cart (the intent); the lines reach the target in one revision LWT that also records the
 * guest cart id there (so they are added once whoever completes the merge, and however often);
 * then the guest cart goes merging → merged.
 */
import {
  type Cart,
  type CartLine,
  type DroppedLine,
  type GuestMerge,
  isExpired,
  MAX_LINE_QTY,
  type MergeRecord,
} from '../carts/cart';
import { afterUnappliedLwt, intentDue } from '../carts/intent-age';
import type { PricedProduct } from '../products/product';

/**
 * The user's lines after a guest cart's lines are added: quantities summed (at most MAX_LINE_QTY
 * a line), names and prices from the catalog table — never from either cart. A guest line the
 * catalog no longer sells is dropped; so is a new line once the cart holds `maxLines` (guest lines
 * in product-id order). The user's own lines are kept as they are.
 */
export function mergeLines(
  target: Readonly<Record<string, CartLine>>,
  guest: Readonly<Record<string, CartLine>>,
  catalog: ReadonlyMap<string, PricedProduct>,
  maxLines: number,
): { items: Record<string, CartLine>; dropped: DroppedLine[] } {
  const items: Record<string, CartLine> = { ...target };
  const dropped: DroppedLine[] = [];
  let lines = Object.keys(items).length;
  for (const productId of Object.keys(guest).sort()) {
    const qty = guest[productId]?.qty ?? 0;
    const product = catalog.get(productId);
    if (!product) {
      dropped.push({ product_id: productId, reason: 'PRODUCT_UNAVAILABLE' });
      continue;
    }
    const mine = items[productId];
    if (!mine) {
      if (lines >= maxLines) {
        dropped.push({ product_id: productId, reason: 'TOO_MANY_LINES' });
        continue;
      }
      lines++;
    }
    items[productId] = {
      name: product.name,
      unit_price: product.price,
      qty: Math.min(MAX_LINE_QTY, (mine?.qty ?? 0) + qty),
    };
  }
  return { items, dropped };
}

/**
 * What a merge by `userId` does with a guest cart as read:
 * - `absent`: nothing to merge (missing, expired, not a guest cart, or in no mergeable state);
 * - `start`: active — record the intent (active → merging) with the target;
 * - `complete`: merging for this user — bring the lines to the target, then close the guest cart;
 * - `done`: merged for this user — answer what was merged (a repeat changes nothing);
 * - `taken`: merging or merged for another user — not this caller's to see or finish.
 */
export type GuestStep = 'absent' | 'start' | 'complete' | 'done' | 'taken';

export function guestStep(guest: Cart | null, userId: string, now: Date): GuestStep {
  if (!guest || guest.user_id !== null) return 'absent';
  switch (guest.status) {
    case 'active':
      return isExpired(guest, now) ? 'absent' : 'start';
    case 'merging':
    case 'merged':
      if (!guest.merge) return 'absent';
      if (guest.merge.user_id !== userId) return 'taken';
      return guest.status === 'merging' ? 'complete' : 'done';
    case 'checking_out':
    case 'ordered':
    case 'abandoned':
      return 'absent';
  }
}

/**
 * What completing a merge does with its target cart as read:
 * - `create`: no such row — create it under the recorded id with the guest's lines (IF NOT EXISTS);
 * - `applied`: the target already records this guest cart — the lines are in, only close the guest cart;
 * - `apply`: active — add the lines and the record in one revision LWT;
 * - `retarget`: the target can never take lines again (ordered, abandoned, merged, another owner
 *   or zone) and does not hold them — record another target on the guest cart first;
 * - `wait`: the target may become active again (checking out, or past its expiry but not yet
 *   dropped) — moving away now could add the lines twice; retry later.
 */
export type TargetStep = 'create' | 'applied' | 'apply' | 'retarget' | 'wait';

export function targetStep(guest: Cart & { merge: GuestMerge }, target: Cart | null, now: Date): TargetStep {
  if (!target) return 'create';
  if (target.merged_from.some((r) => r.guest_cart_id === guest.cart_id)) return 'applied';
  if (target.user_id !== guest.merge.user_id || target.zone !== guest.zone) return 'retarget';
  switch (target.status) {
    case 'active':
      return isExpired(target, now) ? 'wait' : 'apply';
    case 'checking_out':
    case 'merging':
      return 'wait';
    case 'ordered':
    case 'abandoned':
    case 'merged':
      return 'retarget';
  }
}

/** The user's cart a guest cart merges into: the newest active, unexpired one in the guest cart's zone; null → a new cart. */
export function chooseTarget(
  userCarts: readonly Cart[],
  zone: string,
  now: Date,
  exclude?: string,
): string | null {
  const candidates = userCarts.filter(
    (c) => c.status === 'active' && c.zone === zone && !isExpired(c, now) && c.cart_id !== exclude,
  );
  candidates.sort((a, b) => b.created_at.getTime() - a.created_at.getTime());
  return candidates[0]?.cart_id ?? null;
}

/** The record written on the target together with the lines. */
export function mergeRecord(guestCartId: string, now: Date, dropped: readonly DroppedLine[]): MergeRecord {
  return { guest_cart_id: guestCartId, merged_at: now.toISOString(), dropped };
}

/** How many merge records a user cart keeps (the latest). */
export const MAX_MERGE_RECORDS = 50;

export function withRecord(records: readonly MergeRecord[], record: MergeRecord): MergeRecord[] {
  return [...records, record].slice(-MAX_MERGE_RECORDS);
}

/** A merge intent row (merge_intents), written before the guest cart's LWT so the relay can find a half-done merge. */
export interface MergeIntent {
  readonly bucket: number;
  readonly created_at: Date;
  readonly guest_cart_id: string;
}

export type MergeIntentDecision = 'complete' | 'forget' | 'fence' | 'wait';

/**
 * What the merge relay does with an intent row, given the guest cart as a SERIAL read sees it:
 * - merging on this very intent → complete it (a crash stopped it between the writes);
 * - merged, or merging on another request's intent → forget the row (that merge has its own row);
 * - anything else while the LWT may still be in flight (younger than the grace) → wait; after, an
 *   active guest cart is fenced first (its LWT may still land late: see `decideIntent`), anything
 *   else is forgotten.
 */
export function decideMergeIntent(
  intent: MergeIntent,
  guest: Cart | null,
  now: Date,
  graceMs: number,
): MergeIntentDecision {
  if (guest?.status === 'merged') return 'forget';
  if (guest?.status === 'merging' && guest.merge) {
    return Date.parse(guest.merge.started_at) === intent.created_at.getTime() ? 'complete' : 'forget';
  }
  const next = afterUnappliedLwt(intent.created_at, guest, now, graceMs);
  return next === 'drop' ? 'forget' : next;
}

/** Intents younger than `minAgeMs` are left to the request that wrote them. */
export function dueForMergeRelay(intent: MergeIntent, now: Date, minAgeMs: number): boolean {
  return intentDue(intent.created_at, now, minAgeMs);
}

/** Merge intents are few (one per login with a guest cart): a handful of partitions, found by hash of the guest cart id. */
export const MERGE_INTENT_BUCKETS = 4;
