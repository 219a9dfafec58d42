import { z } from 'zod';
import { baseConfigSchema, env, loadConfig } from '@mw/platform';

export const ordersConfigSchema = baseConfigSchema.extend({
  HTTP_PORT: env.port(3004),
  MONGO_URL: env.mongoUrl(),
  MONGO_DB: z.string().min(1).default('orders'),
  /** Order history may be read from secondaries (seed 001 §5); order status for decisions never is. */
  ORDER_HISTORY_READ_PREFERENCE: z.enum(['primary', 'primaryPreferred', 'secondaryPreferred', 'nearest']).default('secondaryPreferred'),
  KAFKA_GROUP_ID: z.string().min(1).default('orders'),
});
export type OrdersConfig = z.infer<typeof ordersConfigSchema>;

export const loadOrdersConfig = (): Readonly<OrdersConfig> => loadConfig(ordersConfigSchema);
