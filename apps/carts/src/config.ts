import { z } from 'zod';
import { baseConfigSchema, env, loadConfig } from '@mw/platform';

const topicName = z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, 'must be a Kafka topic name');

export const cartsConfigSchema = baseConfigSchema
  .extend({
    HTTP_PORT: env.port(3003),
    CASSANDRA_CONTACT_POINTS: env.csv(),
    CASSANDRA_LOCAL_DATACENTER: z.string().min(1).default('datacenter1'),
    CASSANDRA_KEYSPACE: z.string().regex(/^[a-z][a-z0-9_]{0,47}$/).default('carts'),
    CASSANDRA_REPLICATION_FACTOR: env.int(1, 1, 9),
    /** A cart lives this long after its last change; every write rewrites the whole cart with it (ADR 0060). */
    CART_TTL_SECONDS: env.int(604_800, 1, 31_536_000),
    /** Lines per cart; the CheckoutRequested contract allows at most 100. */
    CART_MAX_LINES: env.int(100, 1, 100),
    KAFKA_GROUP_ID: z.string().min(1).default('carts'),
    /** Topic names are configurable so tests run on private topics; production keeps the defaults. */
    CARTS_PRODUCTS_TOPIC: topicName.default('catalog.products.v1'),
    CARTS_STOCK_TOPIC: topicName.default('inventory.events.v1'),
    CARTS_ORDERS_TOPIC: topicName.default('orders.orders.v1'),
    CARTS_CHECKOUT_TOPIC: topicName.default('carts.checkout.v1'),
    /** Partitions of the checkout outbox; the relay scans each one per pass. */
    CHECKOUT_OUTBOX_BUCKETS: env.int(8, 1, 256),
    CHECKOUT_RELAY_INTERVAL_MS: env.int(1000, 20, 60_000),
    /** The request that wrote an intent publishes it itself; the relay leaves younger intents to it. */
    CHECKOUT_RELAY_MIN_AGE_MS: env.int(5000, 0, 600_000),
    /** An intent whose cart is not on its checkout after this long lost its LWT (or never ran it): deleted. */
    CHECKOUT_INTENT_GRACE_MS: env.int(60_000, 100, 86_400_000),
    /**
     * Test-only: a checkout stops (never returns) at this point, so a crash test can SIGKILL the
     * process between the outbox intent and the status LWT, or between the LWT and the publish.
     */
    CARTS_TEST_PAUSE_AT: z.enum(['none', 'after-intent', 'after-lwt']).default('none'),
  })
  .refine((c) => c.CARTS_TEST_PAUSE_AT === 'none' || c.NODE_ENV === 'test', {
    path: ['CARTS_TEST_PAUSE_AT'],
    message: 'is a test-only setting (requires NODE_ENV=test)',
  })
  .refine((c) => c.CHECKOUT_INTENT_GRACE_MS > c.CHECKOUT_RELAY_MIN_AGE_MS, {
    path: ['CHECKOUT_INTENT_GRACE_MS'],
    message: 'must be longer than CHECKOUT_RELAY_MIN_AGE_MS',
  });
export type CartsConfig = z.infer<typeof cartsConfigSchema>;

export const loadCartsConfig = (source?: NodeJS.ProcessEnv): Readonly<CartsConfig> =>
  source ? loadConfig(cartsConfigSchema, source) : loadConfig(cartsConfigSchema);
