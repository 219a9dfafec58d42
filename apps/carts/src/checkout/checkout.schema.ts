/**
 * The checkout outbox (ADR 0060): an intent row per checkout attempt, written BEFORE the status
 * LWT, in a partition the relay scans (`bucket` = hash of the checkout id). Rows are short-lived
 * (deleted once published or once their LWT is known to have lost), so gc_grace is short: a
 * resurrected intent is re-verified against the cart and at worst republished (consumers dedupe by
 * checkout_id).
 */
export const checkoutSchema = (): string[] => [
  `CREATE TABLE IF NOT EXISTS checkout_outbox (
     bucket int, created_at timestamp, checkout_id uuid, cart_id uuid, message_key text, envelope text,
     PRIMARY KEY ((bucket), created_at, checkout_id)
   ) WITH default_time_to_live = 0 AND gc_grace_seconds = 3600`,
  // the trace of the checkout request that wrote the intent: the relay's publish continues it (ADR 0014)
  `ALTER TABLE checkout_outbox ADD IF NOT EXISTS traceparent text`,
  // The relays' time bounds (ADR 0060, issue #17): a restarted relay reads from where the last one was.
  `CREATE TABLE IF NOT EXISTS relay_bounds (
     relay text, bucket int, bound timestamp,
     PRIMARY KEY ((relay), bucket)
   )`,
];
