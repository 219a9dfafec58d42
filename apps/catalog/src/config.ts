import { z } from 'zod';
import { baseConfigSchema, env, loadConfig } from '@mw/platform';

export const catalogConfigSchema = baseConfigSchema.extend({
  HTTP_PORT: env.port(3001),
  MONGO_URL: env.mongoUrl(),
  MONGO_DB: z.string().min(1).default('catalog'),
  /** Catalog search may read from secondaries (seed 001 §5); decisions never do. */
  CATALOG_READ_PREFERENCE: z.enum(['primary', 'primaryPreferred', 'secondary', 'secondaryPreferred', 'nearest']).default('secondaryPreferred'),
  CASSANDRA_CONTACT_POINTS: env.csv(),
  CASSANDRA_LOCAL_DATACENTER: z.string().min(1).default('datacenter1'),
  CASSANDRA_KEYSPACE: z.string().regex(/^[a-z][a-z0-9_]{0,47}$/).default('catalog_read'),
  CASSANDRA_REPLICATION_FACTOR: env.int(1, 1, 9),
  KAFKA_GROUP_ID: z.string().min(1).default('catalog'),
});
export type CatalogConfig = z.infer<typeof catalogConfigSchema>;

export const loadCatalogConfig = (): Readonly<CatalogConfig> => loadConfig(catalogConfigSchema);
