/**
 * Cassandra model (seed 001 §6.2): `carts` by id, and two lookup tables by (owner, status), newest
 * first. A cart row is written whole by every change, `USING TTL` = the cart TTL and
 * `IF revision = ? AND status = ?`, so all its cells expire together (ADR 0060). Lookup rows are
 * written with the same TTL and `USING TIMESTAMP` from the cart's revision, and verified against the
 * cart row on read.
 */
export const cartsSchema = (ttl: number): string[] => [
  `CREATE TYPE IF NOT EXISTS cart_line (name text, qty int, unit_price bigint)`,
  `CREATE TABLE IF NOT EXISTS carts (
     cart_id uuid PRIMARY KEY, user_id text, session_id uuid, zone text, status text,
     items map<text, frozen<cart_line>>, created_at timestamp, updated_at timestamp
   ) WITH default_time_to_live = ${ttl}`,
  // Columns added by ADR 0060 (carts created before keep working: their revision is null).
  `ALTER TABLE carts ADD IF NOT EXISTS expires_at timestamp`,
  `ALTER TABLE carts ADD IF NOT EXISTS revision int`,
  `ALTER TABLE carts ADD IF NOT EXISTS checkout text`,
  `ALTER TABLE carts ADD IF NOT EXISTS checkout_keys text`,
  // Guest-cart merge on login (ADR 0060, sessions and merge): the intent on the guest cart, the record on the user's.
  `ALTER TABLE carts ADD IF NOT EXISTS merge text`,
  `ALTER TABLE carts ADD IF NOT EXISTS merged_from text`,
  `CREATE TABLE IF NOT EXISTS carts_by_user_status (
     user_id text, status text, created_at timestamp, cart_id uuid,
     PRIMARY KEY ((user_id, status), created_at, cart_id)
   ) WITH CLUSTERING ORDER BY (created_at DESC, cart_id ASC) AND default_time_to_live = ${ttl}`,
  `CREATE TABLE IF NOT EXISTS carts_by_session_status (
     session_id uuid, status text, created_at timestamp, cart_id uuid,
     PRIMARY KEY ((session_id, status), created_at, cart_id)
   ) WITH CLUSTERING ORDER BY (created_at DESC, cart_id ASC) AND default_time_to_live = ${ttl}`,
];
