import type { Cart } from './cart';

/**
 * The checkout and merge intents are written before the LWT they announce, and their relays judge
 * them by age. One younger than `minAgeMs` is left to the request that wrote it (it publishes or
 * completes itself).
 */
export function intentDue(createdAt: Date, now: Date, minAgeMs: number): boolean {
  return now.getTime() - createdAt.getTime() >= minAgeMs;
}

/**
 * An intent whose LWT has not visibly applied: within the grace the LWT may still be in flight —
 * wait; after it, a cart still active is fenced (`CartsRepository.fence`: a late LWT then finds
 * another revision and fails), and anything else is dropped (the LWT needed the revision it read
 * while the cart was active, and a revision is never written twice).
 */
export function afterUnappliedLwt(createdAt: Date, cart: Cart | null, now: Date, graceMs: number): 'wait' | 'fence' | 'drop' {
  if (now.getTime() - createdAt.getTime() <= graceMs) return 'wait';
  return cart?.status === 'active' ? 'fence' : 'drop';
}
