/**
 * The carts' price and availability tables, fed by catalog.products.v1 and inventory.events.v1.
 * No TTL: a product lives until its ProductDeleted. Every write carries `USING TIMESTAMP` from the
 * aggregate version (ADR 0060, as ADR 0032), so duplicates and reordering converge.
 */
export const productsSchema = (): string[] => [
  `CREATE TABLE IF NOT EXISTS products (
     product_id text PRIMARY KEY, name text, category_id text, price bigint, version int
   ) WITH default_time_to_live = 0`,
  `CREATE TABLE IF NOT EXISTS stock_levels (
     product_id text, zone text, available int, version int,
     PRIMARY KEY ((product_id), zone)
   ) WITH default_time_to_live = 0`,
];
