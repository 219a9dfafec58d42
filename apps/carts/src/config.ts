import { z } from 'zod';
import { baseConfigSchema, env, loadConfig } from '@mw/platform';

export const cartsConfigSchema = baseConfigSchema.extend({
  HTTP_PORT: env.port(3003),
  CASSANDRA_CONTACT_POINTS: env.csv(),
  CASSANDRA_LOCAL_DATACENTER: z.string().min(1).default('datacenter1'),
  CASSANDRA_KEYSPACE: z.string().regex(/^[a-z][a-z0-9_]{0,47}$/).default('carts'),
  CASSANDRA_REPLICATION_FACTOR: env.int(1, 1, 9),
  /** Carts live 7 days after their last change (seed 000/001). */
  CART_TTL_SECONDS: env.int(604_800, 60, 31_536_000),
  CART_MAX_LINES: env.int(100, 1, 500),
  KAFKA_GROUP_ID: z.string().min(1).default('carts'),
});
export type CartsConfig = z.infer<typeof cartsConfigSchema>;

export const loadCartsConfig = (): Readonly<CartsConfig> => loadConfig(cartsConfigSchema);
