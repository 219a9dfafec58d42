import { z } from 'zod';
import { baseConfigSchema, env, loadConfig } from '@mw/platform';

export const catalogConfigSchema = baseConfigSchema.extend({
  HTTP_PORT: env.port(3001),
  MONGO_URL: env.mongoUrl(),
  MONGO_DB: z.string().min(1).default('catalog'),
  /** Catalog search may read from secondaries (seed 001 §5); decisions never do. */
  CATALOG_READ_PREFERENCE: z
    .enum(['primary', 'primaryPreferred', 'secondary', 'secondaryPreferred', 'nearest'])
    .default('secondaryPreferred'),
  /** How far behind the primary a secondary may be to serve a search (90 s is the driver's minimum). */
  CATALOG_MAX_STALENESS_SECONDS: env.int(90, 90, 3600),
  CASSANDRA_CONTACT_POINTS: env.csv(),
  CASSANDRA_LOCAL_DATACENTER: z.string().min(1).default('datacenter1'),
  CASSANDRA_KEYSPACE: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,47}$/)
    .default('catalog_read'),
  CASSANDRA_REPLICATION_FACTOR: env.int(1, 1, 9),
  KAFKA_GROUP_ID: z.string().min(1).default('catalog'),
  /**
   * Days of creation time per products_by_category partition (ADR 0032 "Time-bucketed partitions"):
   * a first page is one partition read while a period holds a page. Changing it needs a rebuild.
   */
  CATALOG_LISTING_PERIOD_DAYS: env.int(30, 1, 3650),
  /** The API relays its outbox to Kafka (one relay holds the lease at a time). */
  CATALOG_OUTBOX_RELAY: env.bool(true),
  /** A category mover holds the tree's move slot this long without renewing it; then the sweep resumes its move. */
  CATALOG_MOVE_LEASE_MS: env.int(15_000, 500, 600_000),
  /** How often the API looks for category moves interrupted by a crash. */
  CATALOG_MOVE_SWEEP_MS: env.int(5_000, 100, 600_000),
  /** Projector process (its own consumer group, port for /health and /metrics). */
  PROJECTOR_HTTP_PORT: env.port(3011),
  PROJECTOR_GROUP_ID: z.string().min(1).default('catalog-projector'),
  /** Where a new projector group starts: earliest replays the whole topic (a rebuild from the log). */
  PROJECTOR_START_FROM: z.enum(['earliest', 'latest']).default('earliest'),
  /** Partitions the projector consumes at once; unset: every partition of the topic (KAFKA_TOPIC_PARTITIONS). */
  PROJECTOR_PARTITIONS_CONCURRENTLY: z.coerce.number().int().min(1).max(64).optional(),
  /** Topic carrying catalog.products.v1 messages; only the benchmark points it elsewhere. */
  PROJECTOR_TOPIC: z
    .string()
    .regex(/^catalog\.products\.v1[a-z0-9._-]*$/)
    .default('catalog.products.v1'),
});
export type CatalogConfig = z.infer<typeof catalogConfigSchema>;

/** Partitions the projector consumes at once: PROJECTOR_PARTITIONS_CONCURRENTLY, by default every partition of the topic. */
export const projectorConcurrency = (c: CatalogConfig): number =>
  c.PROJECTOR_PARTITIONS_CONCURRENTLY ?? c.KAFKA_TOPIC_PARTITIONS;

export const loadCatalogConfig = (): Readonly<CatalogConfig> => loadConfig(catalogConfigSchema);
