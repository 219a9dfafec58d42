/**
 * Cassandra model (seed 001 §6.2): `carts` by id, and two lookup tables by (owner, status), newest
 * first. Items are a map keyed by product id, so putting an item needs no read-before-write.
 * Every table has the 7-day default TTL; writes also pass `USING TTL` so a change extends it.
 */
export const cartsSchema = (ttl: number): string[] => [
  `CREATE TYPE IF NOT EXISTS cart_line (name text, qty int, unit_price bigint)`,
  `CREATE TABLE IF NOT EXISTS carts (
     cart_id uuid PRIMARY KEY, user_id text, session_id uuid, zone text, status text,
     items map<text, frozen<cart_line>>, created_at timestamp, updated_at timestamp
   ) WITH default_time_to_live = ${ttl}`,
  `CREATE TABLE IF NOT EXISTS carts_by_user_status (
     user_id text, status text, created_at timestamp, cart_id uuid,
     PRIMARY KEY ((user_id, status), created_at, cart_id)
   ) WITH CLUSTERING ORDER BY (created_at DESC, cart_id ASC) AND default_time_to_live = ${ttl}`,
  `CREATE TABLE IF NOT EXISTS carts_by_session_status (
     session_id uuid, status text, created_at timestamp, cart_id uuid,
     PRIMARY KEY ((session_id, status), created_at, cart_id)
   ) WITH CLUSTERING ORDER BY (created_at DESC, cart_id ASC) AND default_time_to_live = ${ttl}`,
];
