import { z } from 'zod';
import { baseConfigSchema, env, loadConfig } from '@mw/platform';

const keyId = z.string().regex(/^[a-z0-9-]{1,16}$/, 'must be 1–16 of a-z, 0-9, -');
const topicName = z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, 'must be a Kafka topic name');

/** Cart lifetime after its last change, and the default lifetime of a guest session: 7 days. */
const SEVEN_DAYS = 604_800;
const ONE_DAY = 86_400;
const NINETY_DAYS = 90 * ONE_DAY;

/**
 * The guest-session key of development and tests (`npm start`, `npm test`), public on purpose:
 * used only when NODE_ENV is explicitly development or test; anywhere else (production, or
 * NODE_ENV unset) GUEST_SESSION_SECRET must be set to a secret of its own (fail closed).
 */
export const DEV_GUEST_SESSION_SECRET = 'mobile-world-dev-guest-session-secret-not-for-production';

export const cartsConfigSchema = baseConfigSchema
  .extend({
    /** No default here: the development guest-session key needs NODE_ENV to say development or test. */
    NODE_ENV: z.enum(['development', 'production', 'test']).optional(),
    HTTP_PORT: env.port(3003),
    CASSANDRA_CONTACT_POINTS: env.csv(),
    CASSANDRA_LOCAL_DATACENTER: z.string().min(1).default('datacenter1'),
    CASSANDRA_KEYSPACE: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,47}$/)
      .default('carts'),
    CASSANDRA_REPLICATION_FACTOR: env.int(1, 1, 9),
    /** A cart lives this long after its last change; every write rewrites the whole cart with it (ADR 0060). */
    CART_TTL_SECONDS: env.int(SEVEN_DAYS, 1, 31_536_000),
    /** HMAC-SHA256 key of guest sessions (`gs2.<key id>.<uuid>.<expiry>.<signature>`, ADR 0007); at least 32 characters. */
    GUEST_SESSION_SECRET: z
      .string()
      .min(32, 'must be at least 32 characters')
      .default(DEV_GUEST_SESSION_SECRET),
    /** Named in every session this key signs (`gs2.<key id>.…`), so a rotation knows which key to check. */
    GUEST_SESSION_KEY_ID: keyId.default('k1'),
    /** During a key rotation: the key sessions issued before it were signed with; verified, never used to sign. */
    GUEST_SESSION_PREVIOUS_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    GUEST_SESSION_PREVIOUS_KEY_ID: keyId.optional(),
    /** A guest session (and with it access to its guest cart) lasts this long after it is issued. */
    GUEST_SESSION_TTL_SECONDS: env.int(SEVEN_DAYS, 60, 31_536_000),
    /**
     * Lifetime of a `user_sessions` row (seed 003: 24 h, the table's default TTL); written `USING TTL`
     * with this value so tests can use seconds. Also how long an instance remembers a session it saw (ADR 0061).
     */
    USER_SESSION_TTL_SECONDS: env.int(ONE_DAY, 1, ONE_DAY),
    /** How long a `user_events` row lives after its event_time (ADR 0061: 90 days). */
    USER_EVENTS_TTL_SECONDS: env.int(NINETY_DAYS, 60, 400 * ONE_DAY),
    /** At most this many events are kept per (user, UTC day) partition, per instance (ADR 0061: bounds a bot's partition). */
    USER_EVENTS_MAX_PER_USER_DAY: env.int(20_000, 1, 100_000),
    /** The merge relay completes guest-cart merges a crash left half-done (ADR 0060, sessions and merge). */
    MERGE_RELAY_INTERVAL_MS: env.int(2000, 20, 60_000),
    /** The request that recorded a merge intent completes it itself; the relay leaves younger intents to it. */
    MERGE_RELAY_MIN_AGE_MS: env.int(5000, 0, 600_000),
    /** A merge intent whose guest cart never started merging after this long lost its LWT: deleted. */
    MERGE_INTENT_GRACE_MS: env.int(60_000, 100, 86_400_000),
    /** Active carts per owner (user or guest session); creating one more is a 409 CARTS.TOO_MANY_CARTS (ADR 0007). */
    CARTS_MAX_ACTIVE_PER_OWNER: env.int(20, 1, 10_000),
    /** Lines per cart; the CheckoutRequested contract allows at most 100. */
    CART_MAX_LINES: env.int(100, 1, 100),
    KAFKA_GROUP_ID: z.string().min(1).default('carts'),
    /** Records of one fetched partition batch handled as one call (order events, products, stock levels); 1 turns batching off. */
    CARTS_CONSUMER_BATCH_MAX: env.int(100, 1, 1000),
    /** Topic names are configurable so tests run on private topics; production keeps the defaults. */
    CARTS_PRODUCTS_TOPIC: topicName.default('catalog.products.v1'),
    CARTS_STOCK_TOPIC: topicName.default('inventory.events.v1'),
    CARTS_ORDERS_TOPIC: topicName.default('orders.orders.v1'),
    CARTS_CHECKOUT_TOPIC: topicName.default('carts.checkout.v1'),
    /** Partitions of the checkout outbox; the relay scans each one per pass. */
    CHECKOUT_OUTBOX_BUCKETS: env.int(8, 1, 256),
    CHECKOUT_RELAY_INTERVAL_MS: env.int(1000, 20, 60_000),
    /**
     * The relays' lookback (ADR 0060): each relay reads a bucket from (its last pass − this) on, so
     * the rows it deleted are not read again. A writer gives up an intent acknowledged later than
     * half of this after its created_at; the other half covers clock differences between instances.
     */
    RELAY_LOOKBACK_MS: env.int(10_000, 1_000, 600_000),
    /** The request that wrote an intent publishes it itself; the relay leaves younger intents to it. */
    CHECKOUT_RELAY_MIN_AGE_MS: env.int(5000, 0, 600_000),
    /** An intent whose cart is not on its checkout after this long lost its LWT (or never ran it): deleted. */
    CHECKOUT_INTENT_GRACE_MS: env.int(60_000, 100, 86_400_000),
    /**
     * Test-only: a checkout stops (never returns) at this point, so a crash test can SIGKILL the
     * process between the outbox intent and the status LWT, or between the LWT and the publish.
     */
    CARTS_TEST_PAUSE_AT: z
      .enum(['none', 'after-intent', 'after-lwt', 'after-merge-intent', 'after-merge-apply'])
      .default('none'),
  })
  .refine((c) => c.CARTS_TEST_PAUSE_AT === 'none' || c.NODE_ENV === 'test', {
    path: ['CARTS_TEST_PAUSE_AT'],
    message: 'is a test-only setting (requires NODE_ENV=test)',
  })
  .refine((c) => c.CHECKOUT_INTENT_GRACE_MS > c.CHECKOUT_RELAY_MIN_AGE_MS, {
    path: ['CHECKOUT_INTENT_GRACE_MS'],
    message: 'must be longer than CHECKOUT_RELAY_MIN_AGE_MS',
  })
  .refine((c) => c.MERGE_INTENT_GRACE_MS > c.MERGE_RELAY_MIN_AGE_MS, {
    path: ['MERGE_INTENT_GRACE_MS'],
    message: 'must be longer than MERGE_RELAY_MIN_AGE_MS',
  })
  .refine(
    (c) =>
      c.GUEST_SESSION_SECRET !== DEV_GUEST_SESSION_SECRET ||
      c.NODE_ENV === 'development' ||
      c.NODE_ENV === 'test',
    {
      path: ['GUEST_SESSION_SECRET'],
      message:
        'is required unless NODE_ENV is development or test (production, or NODE_ENV unset), and must not be the development default',
    },
  )
  .refine(
    (c) =>
      (c.GUEST_SESSION_PREVIOUS_SECRET === undefined) === (c.GUEST_SESSION_PREVIOUS_KEY_ID === undefined),
    {
      path: ['GUEST_SESSION_PREVIOUS_KEY_ID'],
      message: 'and GUEST_SESSION_PREVIOUS_SECRET are given together',
    },
  )
  .refine((c) => c.GUEST_SESSION_PREVIOUS_KEY_ID !== c.GUEST_SESSION_KEY_ID, {
    path: ['GUEST_SESSION_PREVIOUS_KEY_ID'],
    message: 'must differ from GUEST_SESSION_KEY_ID',
  });
export type CartsConfig = z.infer<typeof cartsConfigSchema>;

export const loadCartsConfig = (source?: NodeJS.ProcessEnv): Readonly<CartsConfig> =>
  source ? loadConfig(cartsConfigSchema, source) : loadConfig(cartsConfigSchema);
