/**
 * Merge intents (ADR 0060, sessions and merge): a row per merge attempt, written BEFORE the guest
 * cart's active → merging LWT, in a partition the merge relay scans (`bucket` = hash of the guest
 * cart id). Rows live seconds (deleted once the guest cart is merged, or once their LWT is known
 * to have lost), so gc_grace is short: a resurrected row is re-checked against the guest cart.
 */
export const mergeSchema = (): string[] => [
  `CREATE TABLE IF NOT EXISTS merge_intents (
     bucket int, created_at timestamp, guest_cart_id uuid,
     PRIMARY KEY ((bucket), created_at, guest_cart_id)
   ) WITH default_time_to_live = 0 AND gc_grace_seconds = 3600`,
];
