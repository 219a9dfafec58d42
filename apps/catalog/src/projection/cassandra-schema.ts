/**
 * Keyspace tables (ADR 0033 explains read repair and compaction). Collections are frozen so a
 * write replaces them as one cell: last-write-wins by USING TIMESTAMP applies to the whole value.
 */
export const readModelSchema: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS products_by_id (
    product_id text PRIMARY KEY,
    version bigint,
    name text,
    category_id text,
    ancestors frozen<list<text>>,
    price bigint,
    currency text,
    attributes frozen<map<text, text>>,
    list_price bigint,
    retail_price bigint,
    pct_savings int,
    created_at timestamp,
    updated_at timestamp
  ) WITH read_repair = 'BLOCKING'
    AND compaction = {'class': 'LeveledCompactionStrategy'}
    AND gc_grace_seconds = 864000
    AND comment = 'Product card (seed 003): one partition per product'`,
  `CREATE TABLE IF NOT EXISTS products_by_category (
    category_id text,
    bucket int,
    created_at timestamp,
    product_id text,
    name text,
    price bigint,
    attributes frozen<map<text, text>>,
    pct_savings int,
    product_category_id text,
    version bigint,
    PRIMARY KEY ((category_id, bucket), created_at, product_id)
  ) WITH CLUSTERING ORDER BY (created_at DESC, product_id DESC)
    AND read_repair = 'BLOCKING'
    AND compaction = {'class': 'LeveledCompactionStrategy'}
    AND gc_grace_seconds = 864000
    AND comment = 'New in category X (seed 003); bucket = creation period, newest first (ADR 0032)'`,
  // Which periods of a category hold rows, newest first: the listing reads the newest partition
  // without probing empty periods. Entries are only added (a period emptied by deletes costs one
  // empty read until a rebuild).
  `CREATE TABLE IF NOT EXISTS category_periods (
    category_id text,
    period int,
    PRIMARY KEY (category_id, period)
  ) WITH CLUSTERING ORDER BY (period DESC)
    AND compaction = {'class': 'LeveledCompactionStrategy'}
    AND comment = 'Periods of products_by_category per category (ADR 0032)'`,
  // Never deleted and no TTL (ADR 0032 §6): it must outlive any event that can still arrive.
  `CREATE TABLE IF NOT EXISTS product_versions (
    product_id text PRIMARY KEY,
    version bigint,
    deleted boolean,
    ancestors frozen<list<text>>,
    created_at timestamp
  ) WITH read_repair = 'BLOCKING'
    AND compaction = {'class': 'LeveledCompactionStrategy'}
    AND comment = 'Newest version applied per product, deletes included: refuses late and older events (ADR 0032)'`,
];
