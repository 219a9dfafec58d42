import { z } from 'zod';
import { baseConfigSchema, env, loadConfig, outboxRelayConfigShape } from '@mw/platform';

const topicName = z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, 'must be a Kafka topic name');

export const inventoryConfigSchema = baseConfigSchema.extend({
  HTTP_PORT: env.port(3002),
  MONGO_URL: env.mongoUrl(),
  MONGO_DB: z.string().regex(/^[A-Za-z0-9_-]{1,63}$/).default('inventory'),
  KAFKA_GROUP_ID: z.string().min(1).default('inventory'),
  /** Topic names are configurable so tests and benchmarks run on private topics; production keeps the defaults. */
  INVENTORY_COMMANDS_TOPIC: topicName.default('inventory.commands.v1'),
  INVENTORY_EVENTS_TOPIC: topicName.default('inventory.events.v1'),
  /** Semantic limits of ReserveStock (the contract's own limits are wider). */
  INVENTORY_MAX_LINES: env.int(50, 1, 100),
  INVENTORY_MAX_QTY_PER_LINE: env.int(1000, 1, 100_000),
  /**
   * Longest stock hold inventory grants, whatever ReserveStock.hold_seconds asks (the contract allows
   * a day): a command naming a day cannot lock a hot product for one (ADR 0009). Above orders'
   * STOCK_HOLD_SECONDS (900).
   */
  INVENTORY_MAX_HOLD_SECONDS: env.int(1800, 60, 86_400),
  /** Low-stock listing default threshold. */
  INVENTORY_LOW_STOCK_THRESHOLD: env.int(5, 0, 1_000_000),
  /** Sweeper period (expiry, crash recovery, orphan holds). */
  INVENTORY_SWEEP_INTERVAL_MS: env.int(1000, 50, 600_000),
  /** A reservation left in an intermediate state longer than this is taken over by the sweeper. */
  INVENTORY_STALE_AFTER_MS: env.int(15_000, 100, 3_600_000),
  /** Background pump period: ledger flush and coalesced StockLevelChanged. */
  INVENTORY_PUMP_INTERVAL_MS: env.int(200, 20, 60_000),
  /**
   * Settled orders each stock document remembers (a hold is never taken again for them). Bounds the
   * document; must exceed the settlements one document sees while a stale processor may still act.
   */
  INVENTORY_SETTLED_KEEP: env.int(500, 10, 10_000),
  /** The relay (`OUTBOX_PROGRESS=stream`, the default: a reservation keeps its few answers in `_outbox`). */
  ...outboxRelayConfigShape,
  /**
   * Commands of one fetched partition batch handled together at most (group commit, ADR 0012 §4):
   * their reservations and sales take a few MongoDB round trips whatever their number.
   */
  INVENTORY_COMMANDS_BATCH_MAX: env.int(100, 1, 1000),
  /**
   * How a batch's reservations and sales are written (ADR 0015 §7): `transaction` — one
   * multi-document transaction each, one majority commit (needs a bounded
   * `transactionLifetimeLimitSeconds` on the servers: a process killed inside a transaction holds
   * its documents until the server reaps it); `stages` — three resumable majority writes each.
   */
  INVENTORY_GROUP_COMMIT: z.enum(['transaction', 'stages']).default('transaction'),
});
export type InventoryConfig = z.infer<typeof inventoryConfigSchema>;

export const loadInventoryConfig = (source?: NodeJS.ProcessEnv): Readonly<InventoryConfig> =>
  source ? loadConfig(inventoryConfigSchema, source) : loadConfig(inventoryConfigSchema);
