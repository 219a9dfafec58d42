import { z } from 'zod';
import { topicNames } from '@mw/contracts';
import { baseConfigSchema, env, loadConfig, outboxRelayConfigShape } from '@mw/platform';

const topicName = z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, 'must be a Kafka topic name');
const rate = (def: number) => z.coerce.number().min(0).max(1).default(def);
const optionalCsv = z
  .string()
  .default('')
  .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean));

export const ordersConfigSchema = baseConfigSchema
  .extend({
    HTTP_PORT: env.port(3004),
    MONGO_URL: env.mongoUrl(),
    MONGO_DB: z.string().regex(/^[A-Za-z0-9_-]{1,63}$/).default('orders'),
    /** Order history may be read from secondaries (seed 001 §5); order status for decisions never is. */
    ORDER_HISTORY_READ_PREFERENCE: z.enum(['primary', 'primaryPreferred', 'secondaryPreferred', 'nearest']).default('secondaryPreferred'),
    /** How far behind the primary a secondary may be to serve history (90 s is the driver's minimum). */
    ORDER_HISTORY_MAX_STALENESS_SECONDS: env.int(90, 90, 3600),
    KAFKA_GROUP_ID: z.string().min(1).default('orders'),
    /** Topic names are configurable so tests run on private topics; production keeps the defaults. */
    ORDERS_CHECKOUT_TOPIC: topicName.default('carts.checkout.v1'),
    ORDERS_EVENTS_TOPIC: topicName.default('orders.orders.v1'),
    INVENTORY_COMMANDS_TOPIC: topicName.default('inventory.commands.v1'),
    INVENTORY_EVENTS_TOPIC: topicName.default('inventory.events.v1'),
    /** Saga deadlines (persisted on the order; the sweeper acts on them). */
    SAGA_STOCK_TIMEOUT_MS: env.int(30_000, 100, 3_600_000),
    SAGA_PAYMENT_TIMEOUT_MS: env.int(60_000, 100, 3_600_000),
    /**
     * The commit window: the payment deadline ends this long before the stock hold does (at most
     * half the hold), so the sale sent with the confirmation finds the hold (ADR 0015 §3). Also the
     * wait of an order still COMMITTING from before that change.
     */
    SAGA_COMMIT_TIMEOUT_MS: env.int(30_000, 100, 3_600_000),
    SAGA_CANCEL_TIMEOUT_MS: env.int(60_000, 100, 3_600_000),
    SAGA_SWEEP_INTERVAL_MS: env.int(1000, 20, 600_000),
    /**
     * Saga inputs (checkouts, inventory replies) handled at once (group commit, ADR 0012 §4): a
     * fetched partition batch is cut in chunks of this many, each one read of its orders and one
     * bulkWrite of their transitions; 1 handles every message alone.
     */
    SAGA_BATCH_MAX: env.int(100, 1, 1000),
    /** How long inventory holds the stock (ReserveStock.hold_seconds): longer than the payment wait. */
    STOCK_HOLD_SECONDS: env.int(900, 1, 86_400),
    /** Payment worker: poll period, concurrent calls, lease of a claimed step, retry backoff, call timeout. */
    PAYMENT_POLL_MS: env.int(250, 10, 60_000),
    /**
     * PSP calls in flight per instance, sized by Little's law: a checkout makes 2 calls of 20–150 ms,
     * so 100 checkouts/s keep ≤ 30 in flight; 64 leaves room for bursts. A slot is a waiting promise.
     * Beyond it steps queue (4× this), then wait for the poller — which costs a claim write each.
     */
    PAYMENT_CONCURRENCY: env.int(64, 1, 256),
    PAYMENT_LEASE_MS: env.int(15_000, 100, 600_000),
    PAYMENT_RETRY_BASE_MS: env.int(200, 1, 60_000),
    PAYMENT_RETRY_MAX_MS: env.int(5000, 1, 600_000),
    PAYMENT_CALL_TIMEOUT_MS: env.int(5000, 10, 120_000),
    /** Checkouts carry no card token yet: this one is used for every payment (see ADR 0050). */
    PAYMENT_DEFAULT_CARD_TOKEN: z.string().min(1).max(200).default('tok_default'),
    /** Simulator rules (the only PaymentGateway adapter for now). */
    PAYMENT_SIM_DECLINE_AMOUNT_FROM: z.coerce.number().int().positive().optional(),
    PAYMENT_SIM_DECLINE_TOKENS: optionalCsv,
    PAYMENT_SIM_DECLINE_USERS: optionalCsv,
    PAYMENT_SIM_HANG_USERS: optionalCsv,
    /** Captures for these users land late, between a reversal's refund and void (issue 16's race). */
    PAYMENT_SIM_LATE_CAPTURE_USERS: optionalCsv,
    PAYMENT_SIM_LATENCY_MIN_MS: env.int(20, 0, 60_000),
    PAYMENT_SIM_LATENCY_MAX_MS: env.int(150, 0, 60_000),
    PAYMENT_SIM_TRANSIENT_ERROR_RATE: rate(0.05),
    PAYMENT_SIM_TIMEOUT_RATE: rate(0.02),
    /**
     * Payment reconciliation: every interval, compare the PSP's state of cancelled orders (untouched
     * for the grace period, not yet reconciled) with the saga, and re-arm a reversal that is missing.
     */
    PAYMENT_RECONCILE_INTERVAL_MS: env.int(30_000, 100, 3_600_000),
    PAYMENT_RECONCILE_GRACE_MS: env.int(60_000, 0, 86_400_000),
    ...outboxRelayConfigShape,
    /** Sales analytics (ADR 0051): the read model's consumer group (default `<KAFKA_GROUP_ID>-analytics`) and where a new one starts. */
    ANALYTICS_GROUP_ID: z.string().min(1).max(200).optional(),
    ANALYTICS_START_FROM: z.enum(['earliest', 'latest']).default('earliest'),
    /** Order events applied in one transaction at most (group commit, ADR 0051). */
    ANALYTICS_MAX_BATCH: env.int(200, 1, 1000),
    /**
     * How the analytics consumer's fetches fill its batches (ADR 0051 "Fetch linger"): the broker
     * answers once this many bytes are waiting, or after ANALYTICS_FETCH_MAX_WAIT_MS. The read model
     * is eventual, so waiting up to half a second turns a transaction per event into one per batch;
     * `ANALYTICS_FETCH_MIN_BYTES=1` answers at the first record (the saga's consumers do).
     */
    ANALYTICS_FETCH_MIN_BYTES: env.int(65_536, 1, 16 * 1024 * 1024),
    ANALYTICS_FETCH_MAX_WAIT_MS: env.int(500, 10, 10_000),
    /** Analytics reads may come from secondaries (seed 001 §5), at most this far behind the primary. */
    ANALYTICS_READ_PREFERENCE: z.enum(['primary', 'primaryPreferred', 'secondaryPreferred', 'nearest']).default('secondaryPreferred'),
    ANALYTICS_MAX_STALENESS_SECONDS: env.int(90, 90, 3600),
    /**
     * The operator's Kafka endpoints (consumer lag, dead letters, redrive) connect as the `ops`
     * principal (ADR 0009), not as orders: its password (KAFKA_PASSWORD_OPS of infra:env). Without
     * it (under SASL) those endpoints answer 503 and the rest of the service is unaffected.
     */
    OPS_KAFKA_USERNAME: z.string().min(1).default('ops'),
    OPS_KAFKA_PASSWORD: z.string().min(1).optional(),
    /** Topics whose dead letters the operator sees (their `<topic>.dlq`): the registry's by default. */
    OPS_DLQ_TOPICS: z
      .string()
      .default(topicNames.join(','))
      .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
      .pipe(z.array(topicName).min(1)),
    /** The catalog projector's consumer group, named apart in the lag report. */
    OPS_PROJECTOR_GROUP: z.string().min(1).default('catalog-projector'),
  })
  .superRefine((c, ctx) => {
    if (c.PAYMENT_SIM_LATENCY_MIN_MS > c.PAYMENT_SIM_LATENCY_MAX_MS) {
      ctx.addIssue({ code: 'custom', path: ['PAYMENT_SIM_LATENCY_MIN_MS'], message: 'must not exceed PAYMENT_SIM_LATENCY_MAX_MS' });
    }
    if (c.STOCK_HOLD_SECONDS * 1000 <= c.SAGA_PAYMENT_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['STOCK_HOLD_SECONDS'], message: 'must be longer than SAGA_PAYMENT_TIMEOUT_MS, or every payment races the reservation expiry' });
    }
  });
export type OrdersConfig = z.infer<typeof ordersConfigSchema>;

export const loadOrdersConfig = (source?: NodeJS.ProcessEnv): Readonly<OrdersConfig> =>
  source ? loadConfig(ordersConfigSchema, source) : loadConfig(ordersConfigSchema);
