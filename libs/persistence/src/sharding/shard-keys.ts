/**
 * The one source of truth for how the services' data is partitioned past one machine (issue #20,
 * ADR 0010): the MongoDB shard key of every collection of every service database, the zones of the
 * orders collection, the Cassandra partition keys, and the Kafka partition key of every topic. The
 * compose init job (tools/infra/mongo/compose-shard-init.js) is generated from it, ADR 0010's table
 * is checked against it, and the services' query-shape tests check their profiled queries with
 * {@link unroutedQueries}.
 *
 * Plain data and pure functions: no driver, no framework.
 */

/** A shard key: fields in order, each ranged (1) or hashed (at most one hashed field). */
export type ShardKey = Readonly<Record<string, 1 | 'hashed'>>;

/** A query that mongos cannot route by the shard key, accepted and explained. */
export interface DocumentedScatter {
  /** The profiled operation: `query`, `update`, `remove`, `findAndModify`, `count`, `aggregate`, `distinct`. */
  readonly op: string;
  /** The filter's top-level fields, sorted (`$or` / `$and` count as fields): what identifies the query. */
  readonly fields: readonly string[];
  /** Who sends it. */
  readonly from: string;
  /** Why sending it to every shard is accepted, or how its cost is bounded. */
  readonly accepted: string;
}

export interface CollectionSharding {
  readonly db: 'orders' | 'inventory' | 'catalog';
  readonly collection: string;
  /** null: not sharded — the collection lives on its database's primary shard. */
  readonly key: ShardKey | null;
  readonly why: string;
  readonly scatters: readonly DocumentedScatter[];
}

const outboxScan = (service: string): DocumentedScatter => ({
  op: 'query',
  fields: ['_outbox.created_at', '_outbox.parked'],
  from: `${service} outbox relay (libs/messaging OutboxRelay)`,
  accepted:
    'the relay must see pending messages on every shard; each shard answers from its partial outbox_pending index with the few documents that have messages, so the cost is one index seek per shard per poll',
});
const outboxParked = (service: string): DocumentedScatter => ({
  op: 'aggregate',
  fields: ['_outbox.parked.at'],
  from: `${service} outbox relay (parked-message gauge)`,
  accepted:
    'a gauge refreshed per poll from the sparse outbox_parked index on every shard; empty when nothing is parked',
});
const outboxRecovery = (service: string): DocumentedScatter[] => [
  {
    op: 'query',
    fields: ['_outbox.created_at'],
    from: `${service} outbox relay, 'stream' progress: the recovery scan (ADR 0015 §2)`,
    accepted:
      'runs only when the relay has no usable resume token (a first start, or a stop longer than the oplog window): every shard answers from its outbox_pending index the documents with entries since the stored progress time minus a margin',
  },
  {
    op: 'query',
    fields: ['_outbox.parked.at'],
    from: `${service} outbox relay, 'stream' progress: the recovery scan's blocked documents`,
    accepted: 'once per recovery scan, from the sparse outbox_parked index on every shard; empty when nothing is parked',
  },
];

/**
 * Every collection the services write. Inserts are always routed (the document carries its key);
 * the scatters are the reads, updates and counts whose filter lacks the key.
 */
export const shardingTable: readonly CollectionSharding[] = [
  // ---------------------------------------------------------------- orders
  {
    db: 'orders',
    collection: 'orders',
    key: { zone: 1, user_id: 'hashed' },
    why: "Seed 001/002: hashed user id spreads writes evenly (high cardinality, no monotonic insert hot spot); seed 001 §4.2: the zone prefix lets the init job pin each geozone to shards (zone sharding), so a region's orders stay on its hardware. Neither field ever changes after checkout, so no shard-key update is ever needed. Kafka orders.orders.v1 is keyed by user_id.",
    scatters: [
      {
        op: 'query',
        fields: ['_id'],
        from: 'saga loads on inventory replies and payment steps, GET /orders/{id}, analytics order read (by order id)',
        accepted:
          'the replies carry only order_id: mongos asks every shard, each answers from its _id index (one seek per shard, at most one hit). Avoiding it needs zone and user_id in every reply (an inventory contract change); at 2–4 shards the extra seeks cost less than that coupling. Revisit past 4 shards',
      },
      {
        op: 'update',
        fields: ['_id', 'version'],
        from: 'saga transitions (optimistic, by id and version)',
        accepted:
          'as the _id read above; MongoDB 7 routes a single-document update by _id to the owning shard after a broadcast match',
      },
      {
        op: 'update',
        fields: ['_id', 'saga.payment.step', 'version'],
        from: 'payment worker (schedules the next payment attempt)',
        accepted: 'as the _id read above',
      },
      {
        op: 'query',
        fields: ['saga.deadline'],
        from: 'deadline sweeper',
        accepted: 'a sweep must visit every shard; each answers from its saga.deadline index, limit-bounded',
      },
      {
        op: 'aggregate',
        fields: ['saga.deadline'],
        from: 'orders_saga_overdue gauge (each Prometheus scrape, docs/adr/0011)',
        accepted:
          'a count by saga state of the overdue orders only: each shard answers from its saga.deadline index; one per scrape',
      },
      {
        op: 'query',
        fields: ['saga.payment.next_at'],
        from: 'payment worker',
        accepted:
          'a sweep must visit every shard; each answers from its saga.payment.next_at index, limit-bounded',
      },
      {
        op: 'query',
        fields: ['$or', 'payment_reconciled_at', 'updated_at'],
        from: 'payment reconciliation sweep',
        accepted:
          'a sweep must visit every shard; each answers from its partial reconciliation index, limit-bounded',
      },
      {
        op: 'query',
        fields: ['user_id'],
        from: 'GET /orders?user_id= (history, first page), from a secondary',
        accepted:
          "the history request does not name the zone, so mongos asks the shards of every zone (the user's orders may span zones); each answers from {user_id, order_date, _id}, limit-bounded and from secondaries. With 3 zones this is at most 3 shards",
      },
      {
        op: 'query',
        fields: ['$or', 'user_id'],
        from: 'GET /orders?user_id=&cursor= (history, next pages)',
        accepted: 'as the first page',
      },
      {
        op: 'aggregate',
        fields: [],
        from: 'analytics backfill and the analytics benchmark (whole-collection pipelines)',
        accepted: 'an offline rebuild reads every order by definition; it runs on secondaries',
      },
      outboxScan('orders'),
      outboxParked('orders'),
      ...outboxRecovery('orders'),
    ],
  },
  {
    db: 'orders',
    collection: 'checkout_rejections',
    key: { _id: 'hashed' },
    why: 'One document per rejected checkout, written and read by its id only (the checkout id): hashed _id spreads them and routes every access.',
    scatters: [outboxScan('orders'), outboxParked('orders'), ...outboxRecovery('orders')],
  },
  {
    db: 'orders',
    collection: 'analytics_days',
    key: null,
    why: "One document per (day, zone): about a thousand a year. Too small to shard; it lives on the orders database's primary shard.",
    scatters: [],
  },
  {
    db: 'orders',
    collection: 'analytics_categories',
    key: null,
    why: 'One document per (day, zone, category): tens of thousands a year, read by report ranges. Small enough for one shard; sharding would turn every report into a scatter.',
    scatters: [],
  },
  {
    db: 'orders',
    collection: 'analytics_products',
    key: { _id: 'hashed' },
    why: 'One document per (period, zone, category, product): the largest analytics table and written on every sale ($inc by _id), so the writes must spread; hashed _id routes every increment.',
    scatters: [
      {
        op: 'query',
        fields: ['category_id', 'period', 'zone'],
        from: 'GET /analytics/top-products (a report), from a secondary',
        accepted:
          'a report over a period; each shard answers from {category_id, zone, period}. Reports are rare next to the increments the hashed key serves',
      },
      {
        op: 'query',
        fields: ['period', 'zone'],
        from: 'GET /analytics/top-products without a category',
        accepted: 'as above, from {zone, period, …}',
      },
    ],
  },
  {
    db: 'orders',
    collection: 'analytics_applied',
    key: { _id: 'hashed' },
    why: 'One marker per applied fact of an order (`<order id>:<fact>`), written on every order event and read by _id $in: hashed _id routes each marker.',
    scatters: [],
  },
  {
    db: 'orders',
    collection: 'payment_sim_payments',
    key: { _id: 'hashed' },
    why: "The payment simulator's PSP state with the operations performed on it (one write per call), one document per payment reference, only ever accessed by _id. `payment_sim_operations` is a view of it (one row per idempotency key), read only by tests and the chaos checker.",
    scatters: [],
  },
  {
    db: 'orders',
    collection: 'outbox_leases',
    key: null,
    why: 'One lease document per outbox relay: a handful of documents. Never sharded.',
    scatters: [],
  },
  // ---------------------------------------------------------------- inventory
  {
    db: 'inventory',
    collection: 'stock',
    key: { _id: 'hashed' },
    why: "One document per (product, zone), _id = stockKey(product_id, zone); every reservation, commit, release and return is a conditional update by _id, so hashed _id routes all of them and spreads a hot product's zones over shards. Multi-product reservations are cross-shard transactions (supported by mongos).",
    scatters: [
      {
        op: 'query',
        fields: ['product_id'],
        from: 'GET /stock/{product} (all zones of one product)',
        accepted: 'an operator read of a few documents; each shard answers from {product_id, zone}',
      },
      {
        op: 'query',
        fields: ['available', 'zone'],
        from: 'GET /low-stock?zone= (operator report)',
        accepted: 'a report; each shard answers from {zone, available, _id}, limit-bounded, merged by mongos',
      },
      {
        op: 'query',
        fields: ['reservations.expires_at'],
        from: 'stock sweeper (orphan holds)',
        accepted: 'a sweep must visit every shard; index-served and limit-bounded',
      },
      {
        op: 'query',
        fields: ['$or'],
        from: 'stock pass (level_dirty or _ledger.at)',
        accepted: 'a sweep over the few dirty documents and those holding unflushed entries on every shard (sparse index on level_dirty, index on _ledger.at)',
      },
      {
        op: 'query',
        fields: ['_ledger.at'],
        from: 'ledger-only flush (tools and tests)',
        accepted: 'a sweep over documents holding unflushed entries on every shard (index on _ledger.at)',
      },
      {
        op: 'query',
        fields: [],
        from: 'GET /ledger/check without a filter (invariant check, snapshot read)',
        accepted: 'an operator check over the whole collection, limit-bounded',
      },
      outboxScan('inventory'),
      outboxParked('inventory'),
      ...outboxRecovery('inventory'),
    ],
  },
  {
    db: 'inventory',
    collection: 'reservations',
    key: { _id: 'hashed' },
    why: 'One document per order, _id = order_id, the key of inventory.commands.v1 and of the replies on inventory.events.v1: every command handler and status change is routed by _id.',
    scatters: [
      {
        op: 'query',
        fields: ['expires_at', 'status'],
        from: 'reservation sweeper (expired holds)',
        accepted: 'a sweep must visit every shard; hinted status_expiry index, limit-bounded',
      },
      {
        op: 'query',
        fields: ['status'],
        from: 'reservation sweeper (when the next hold expires, after each pass)',
        accepted: 'each shard answers the first entry of its hinted status_expiry index (limit 1); one per pass, and passes back off to 16 intervals while nothing expires',
      },
      {
        op: 'query',
        fields: ['pending', 'updated_at'],
        from: 'reservation sweeper (stale pending work)',
        accepted: 'a sweep; pending_work index, limit-bounded',
      },
      {
        op: 'query',
        fields: ['status', 'updated_at'],
        from: 'reservation sweeper (stale reserving)',
        accepted: 'a sweep; hinted status_updated index, limit-bounded',
      },
      {
        op: 'aggregate',
        fields: ['lines.product_id', 'status', 'zone'],
        from: 'ledger invariant check (committed units of one product and zone)',
        accepted:
          'operator check; the $match is lines.product_id + zone on the committed_lines index of every shard',
      },
      {
        op: 'query',
        fields: ['lines.product_id', 'pending', 'zone'],
        from: 'ledger invariant check (commits still applying)',
        accepted: 'operator check; hinted committed_lines index',
      },
      {
        op: 'query',
        fields: ['lines.product_id', 'pending', 'status', 'zone'],
        from: 'ledger invariant check and returns (returns in flight)',
        accepted: 'few documents (returns in flight); hinted returns_in_flight index on every shard',
      },
      outboxScan('inventory'),
      outboxParked('inventory'),
      ...outboxRecovery('inventory'),
    ],
  },
  {
    db: 'inventory',
    collection: 'ledger',
    key: { _id: 'hashed' },
    why: "Append-only, one entry per stock movement: the largest inventory collection and insert-heavy, so inserts must spread (a product-ranged key would make a hot product one hot chunk). The flusher's de-duplication reads by _id $in, routed.",
    scatters: [
      {
        op: 'query',
        fields: ['product_id', 'zone'],
        from: 'GET /ledger?product_id=&zone= (operator history)',
        accepted: 'an operator read; each shard answers from {product_id, zone, at, _id}, limit-bounded',
      },
      {
        op: 'aggregate',
        fields: ['product_id', 'zone'],
        from: 'ledger invariant check (sums per movement kind of one product and zone)',
        accepted: 'operator check (GET /ledger/check); each shard sums its entries of the product from the {product_id, zone, at, _id} index and mongos merges the partial $group',
      },
    ],
  },
  {
    db: 'inventory',
    collection: 'outbox_leases',
    key: null,
    why: 'One lease document per outbox relay.',
    scatters: [],
  },
  // ---------------------------------------------------------------- catalog
  {
    db: 'catalog',
    collection: 'products',
    key: { _id: 'hashed' },
    why: 'Seed 000 leaves products unsharded; seed 002 shards by hashed category + price ranges and then meets the hot "Electronics" shard. Customer reads are served by the Cassandra read model (ADR 0032), so MongoDB products take admin writes and search: hashed _id (seed 002\'s remedy 2 taken to its end — a unique field in the key) makes a hot category impossible and never needs a shard-key update when a product changes category or price.',
    scatters: [
      {
        op: 'query',
        fields: ['category_id', 'deleted_at'],
        from: 'search and category listings on MongoDB (GET /products?category=), category delete guard',
        accepted:
          'the price of remedy 2: a category read gathers from every shard (each from {category_id, …}); customer listings come from Cassandra products_by_category, not from here',
      },
      {
        op: 'query',
        fields: ['$and'],
        from: 'GET /products search with several filters (category subtree, price range, attributes; apps/catalog search-query.ts)',
        accepted:
          'search is a scatter by design on a hashed _id: each shard answers its part from its own indexes and mongos merges the sorted, limit-bounded pages; it is served by secondaries, and customer category pages come from Cassandra',
      },
      {
        op: 'query',
        fields: [],
        from: 'read-model rebuild/verify (full scan by _id)',
        accepted: 'an offline rebuild reads everything by definition',
      },
      outboxScan('catalog'),
      outboxParked('catalog'),
    ],
  },
  {
    db: 'catalog',
    collection: 'categories',
    key: null,
    why: "Hundreds of documents, read whole for the tree and updated by subtree ($ancestors): unsharded, on the catalog database's primary shard, so subtree moves stay single-shard.",
    scatters: [],
  },
  {
    db: 'catalog',
    collection: 'category_moves',
    key: null,
    why: 'The move journal: at most one pending move (unique partial index), which only an unsharded collection can enforce.',
    scatters: [],
  },
  {
    db: 'catalog',
    collection: 'outbox_leases',
    key: null,
    why: 'One lease document per outbox relay.',
    scatters: [],
  },
];

/** Zone sharding of orders (seed 001 §4.2): each geozone's key range, and the shard it is pinned to in compose. */
export interface ZoneRange {
  readonly zone: string;
  readonly shard: string;
}
export const orderZones: readonly ZoneRange[] = [
  { zone: 'MSK', shard: 'shard1' },
  { zone: 'SPB', shard: 'shard2' },
  { zone: 'EKB', shard: 'shard2' },
];
/** The shard replica sets of the compose overlay. */
export const composeShards = ['shard1', 'shard2'] as const;

/** Cassandra tables: the partition key is the shard key (ADR 0010; ADR 0033 for replication). */
export interface CassandraPartitioning {
  readonly keyspace: 'catalog_read' | 'carts';
  readonly table: string;
  readonly partitionKey: readonly string[];
  readonly why: string;
}

/**
 * The Kafka partition key of every (topic, key field) and which shard key it equals: so the
 * consumer that handles one aggregate's messages in order is the one whose writes go to one
 * shard key value.
 */
export interface TopicPartitioning {
  readonly topic: string;
  /** The payload field the registry names as the key (libs/contracts message definitions). */
  readonly keyField: string;
  /** The aggregate's home: `db.collection` (MongoDB) or `keyspace.table` (Cassandra). */
  readonly owner: string;
  /** The owner's shard-key / partition-key field the key equals. */
  readonly shardKeyField: string;
  readonly note: string;
}
export const topicPartitioning: readonly TopicPartitioning[] = [
  {
    topic: 'catalog.products.v1',
    keyField: 'product_id',
    owner: 'catalog.products',
    shardKeyField: '_id',
    note: "product_id is the product's _id, the hashed shard key",
  },
  {
    topic: 'catalog.categories.v1',
    keyField: 'category_id',
    owner: 'catalog.categories',
    shardKeyField: '_id',
    note: 'categories are unsharded; category_id is their _id',
  },
  {
    topic: 'inventory.commands.v1',
    keyField: 'order_id',
    owner: 'inventory.reservations',
    shardKeyField: '_id',
    note: "a reservation's _id is its order_id",
  },
  {
    topic: 'inventory.events.v1',
    keyField: 'order_id',
    owner: 'inventory.reservations',
    shardKeyField: '_id',
    note: 'the replies of the reservation aggregate',
  },
  {
    topic: 'inventory.events.v1',
    keyField: 'product_id',
    owner: 'inventory.stock',
    shardKeyField: '_id',
    note: 'StockLevelChanged: the stock _id is stockKey(product_id, zone), so the key is the product part of the shard key — one partition holds every zone of a product, in order',
  },
  {
    topic: 'carts.checkout.v1',
    keyField: 'cart_id',
    owner: 'carts.carts',
    shardKeyField: 'cart_id',
    note: "the carts table's partition key",
  },
  {
    topic: 'orders.orders.v1',
    keyField: 'user_id',
    owner: 'orders.orders',
    shardKeyField: 'user_id',
    note: 'the hashed part of the orders shard key (zone, user_id)',
  },
];

export const cassandraTables: readonly CassandraPartitioning[] = [
  {
    keyspace: 'carts',
    table: 'carts',
    partitionKey: ['cart_id'],
    why: 'one cart per partition; LWT (IF revision = …) per cart',
  },
  {
    keyspace: 'catalog_read',
    table: 'products_by_category',
    partitionKey: ['category_id', 'bucket'],
    why: 'ADR 0032: bucket = creation period, so a category is many bounded partitions and a first page reads the newest one (seed 002 remedy 2 in Cassandra, issue 23)',
  },
];

/** The sharding of `db.collection`, or undefined when it is not in the table. */
export function shardingOf(db: string, collection: string): CollectionSharding | undefined {
  return shardingTable.find((c) => c.db === db && c.collection === collection);
}

/**
 * The shard-key fields other than `_id` of each of `collections` (those a document's `_id` alone does
 * not route): what the outbox relay adds to the filter of its per-document updates.
 */
export function shardKeyFields(db: string, collections: readonly string[]): Record<string, string[]> {
  return Object.fromEntries(collections.map((c) => [c, Object.keys(shardingOf(db, c)?.key ?? {}).filter((f) => f !== '_id')]));
}

/** A profiled operation as libs/testing's profiler reports it. */
export interface ProfiledQuery {
  readonly collection: string;
  readonly op: string;
  /** JSON of the filter's shape (libs/testing shapeOf). */
  readonly shape: string;
}

function isEquality(v: unknown): boolean {
  if (v === '?' || Array.isArray(v)) return true;
  if (v && typeof v === 'object') {
    const ops = Object.keys(v);
    return ops.length > 0 && ops.every((o) => o === '$eq' || o === '$in');
  }
  return false;
}

/**
 * The operations on sharded collections of `db` that mongos cannot route by the shard key (some
 * key field not matched by equality or $in) and that the table does not document as a scatter:
 * each as `collection op [fields]`. Operations on unsharded or unknown collections are for
 * {@link unknownCollections}.
 */
export function unroutedQueries(db: string, ops: readonly ProfiledQuery[]): string[] {
  const out = new Set<string>();
  for (const o of ops) {
    const c = shardingOf(db, o.collection);
    if (!c?.key) continue;
    const filter = JSON.parse(o.shape) as Record<string, unknown>;
    const routed = Object.keys(c.key).every((f) => f in filter && isEquality(filter[f]));
    if (routed) continue;
    const fields = Object.keys(filter).sort();
    const documented = c.scatters.some(
      (s) => s.op === o.op && s.fields.length === fields.length && s.fields.every((f, i) => f === fields[i]),
    );
    if (!documented) out.add(`${o.collection} ${o.op} [${fields.join(', ')}]`);
  }
  return [...out];
}

/** Collections of `db` seen in `ops` that the table does not list. */
export function unknownCollections(db: string, ops: readonly ProfiledQuery[]): string[] {
  return [...new Set(ops.map((o) => o.collection))].filter((c) => !shardingOf(db, c));
}

const js = (v: unknown): string => JSON.stringify(v);

/**
 * The compose init job's mongosh script (tools/infra/mongo/compose-shard-init.js): adds the two
 * shards, shards every keyed collection, tags the shards and sets the orders zone ranges. Each
 * step is idempotent, so the job may run again on a started cluster.
 */
export function composeShardInitScript(): string {
  const lines: string[] = [
    '// Generated from libs/persistence/src/sharding/shard-keys.ts by tools/infra — do not edit:',
    '//   npx tsx --tsconfig tsconfig.base.json tools/infra/src/cli.ts compose-shards > tools/infra/mongo/compose-shard-init.js',
    '// Run by the mongo-shard-init job of docker-compose.sharded.yml against mongos (ADR 0010).',
    'const ok = (r) => { if (r && r.ok !== 1) throw new Error(JSON.stringify(r)); return r; };',
    'const listed = db.adminCommand({ listShards: 1 }).shards.map((s) => s._id);',
  ];
  for (const shard of composeShards) {
    const hosts = [1, 2, 3].map((i) => `${shard}-${i}:27018`).join(',');
    lines.push(`if (!listed.includes(${js(shard)})) ok(sh.addShard(${js(`${shard}/${hosts}`)}));`);
  }
  for (const dbName of [...new Set(shardingTable.map((c) => c.db))]) {
    lines.push(`ok(sh.enableSharding(${js(dbName)}));`);
  }
  const zones = [...new Set(orderZones.map((z) => z.zone))];
  for (const shard of composeShards) {
    for (const z of orderZones.filter((r) => r.shard === shard))
      lines.push(`ok(sh.addShardToZone(${js(shard)}, ${js(z.zone)}));`);
  }
  for (const c of shardingTable.filter((t) => t.key !== null)) {
    const ns = `${c.db}.${c.collection}`;
    if (ns === 'orders.orders') {
      // Zones before the collection is sharded: the initial chunks are created inside the zone ranges.
      for (const z of zones) {
        lines.push(
          `ok(sh.updateZoneKeyRange(${js(ns)}, { zone: ${js(z)}, user_id: MinKey }, { zone: ${js(z)}, user_id: MaxKey }, ${js(z)}));`,
        );
      }
    }
    lines.push(`ok(sh.shardCollection(${js(ns)}, ${js(c.key)}));`);
  }
  lines.push("print('mongo-shard-init: shards, shard keys and zones in place'); sh.status();", '');
  return lines.join('\n');
}
