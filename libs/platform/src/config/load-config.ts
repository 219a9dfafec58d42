import { isIP } from 'node:net';
import { z } from 'zod';
import { consumerTimeoutProblems } from '../bootstrap/consumer-timeouts';
import { tracingConfigSchema } from '../tracing/tracing-settings';

/** Raised when the environment does not satisfy a service's config schema. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses and validates the environment once at startup into a typed, frozen object.
 * Nothing else in a service reads process.env.
 */
export function loadConfig<S extends z.ZodObject>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): Readonly<z.infer<S>> {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((i) => {
        const name = i.path.join('.') || '(environment)';
        return i.code === 'invalid_type' && env[name] === undefined
          ? `${name} is required`
          : `${name}: ${i.message}`;
      }),
    );
  }
  const crossProblems = crossFieldProblems(result.data as Record<string, unknown>);
  if (crossProblems.length > 0) throw new ConfigError(crossProblems);
  return Object.freeze(result.data);
}

/** Relations between variables of the base schema (a refinement would stop apps from extending it). */
function crossFieldProblems(data: Record<string, unknown>): string[] {
  const { OIDC_JWKS_REFRESH_SECONDS: refresh, OIDC_JWKS_MAX_STALE_SECONDS: stale } = data;
  const jwks =
    typeof refresh === 'number' && typeof stale === 'number' && stale < refresh
      ? [`OIDC_JWKS_MAX_STALE_SECONDS: must be at least OIDC_JWKS_REFRESH_SECONDS (${refresh})`]
      : [];
  return [...jwks, ...kafkaCredentialProblems(data), ...consumerProblems(data)];
}

function consumerProblems(data: Record<string, unknown>): string[] {
  const {
    KAFKA_SESSION_TIMEOUT_MS: session,
    KAFKA_HEARTBEAT_INTERVAL_MS: heartbeat,
    KAFKA_HANDLER_TIMEOUT_MS: handler,
  } = data;
  if (typeof session !== 'number' || typeof heartbeat !== 'number' || typeof handler !== 'number') return [];
  return consumerTimeoutProblems({
    sessionTimeoutMs: session,
    heartbeatIntervalMs: heartbeat,
    handlerTimeoutMs: handler,
  });
}

/** A SASL mechanism needs the principal's name and password (ADR 0009); `none` is for a broker without authentication. */
function kafkaCredentialProblems(data: Record<string, unknown>): string[] {
  const mechanism = data['KAFKA_SASL_MECHANISM'];
  if (mechanism === undefined || mechanism === 'none') return [];
  return (['KAFKA_USERNAME', 'KAFKA_PASSWORD'] as const)
    .filter((name) => data[name] === undefined)
    .map((name) => `${name} is required when KAFKA_SASL_MECHANISM is ${String(mechanism)}`);
}

/** SASL settings of a kafkajs client. */
export type KafkaSasl = { readonly username: string; readonly password: string } & (
  | { readonly mechanism: 'scram-sha-512' }
  | { readonly mechanism: 'scram-sha-256' }
  | { readonly mechanism: 'plain' }
);

/** The SASL settings of a validated config (undefined for KAFKA_SASL_MECHANISM=none). */
export function kafkaSaslOf(config: Pick<BaseConfig, 'KAFKA_SASL_MECHANISM' | 'KAFKA_USERNAME' | 'KAFKA_PASSWORD'>): KafkaSasl | undefined {
  if (config.KAFKA_SASL_MECHANISM === 'none') return undefined;
  if (config.KAFKA_USERNAME === undefined || config.KAFKA_PASSWORD === undefined) {
    throw new ConfigError([`KAFKA_USERNAME and KAFKA_PASSWORD are required when KAFKA_SASL_MECHANISM is ${config.KAFKA_SASL_MECHANISM}`]);
  }
  return { mechanism: config.KAFKA_SASL_MECHANISM, username: config.KAFKA_USERNAME, password: config.KAFKA_PASSWORD } as KafkaSasl;
}

/** Env helpers: every variable is a string, these coerce and bound it. */
export const env = {
  port: (def: number) => z.coerce.number().int().min(1).max(65535).default(def),
  int: (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z.coerce.number().int().min(min).max(max).default(def),
  csv: (def?: string) =>
    (def === undefined ? z.string() : z.string().default(def)).transform((s, ctx) => {
      const items = s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      if (items.length === 0)
        ctx.addIssue({ code: 'custom', message: 'must be a non-empty comma-separated list' });
      return items;
    }),
  bool: (def: boolean) =>
    z
      .enum(['true', 'false', '1', '0'])
      .default(def ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1'),
  mongoUrl: () => z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// connection string'),
  brokers: () =>
    z.string().transform((s, ctx) => {
      const list = s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      if (list.length === 0 || list.some((b) => !/^[^:\s]+:\d{1,5}$/.test(b))) {
        ctx.addIssue({ code: 'custom', message: 'must be host:port[,host:port...]' });
      }
      return list;
    }),
};

const TRUST_PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** An address or CIDR (`10.0.0.0/8`, `fd00::/8`) of a proxy, or one of express's names (loopback, linklocal, uniquelocal). */
function isProxyAddress(entry: string): boolean {
  if (TRUST_PROXY_NAMES.includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY (ADR 0007): `false` (default: the socket's address is the client), a hop count 1–10
 * (that many proxies in front, each appending to X-Forwarded-For), or a comma-separated list of the
 * proxies' addresses/CIDRs. `true` (believe any X-Forwarded-For) is refused: a client could pick its
 * own address and with it its rate-limit bucket.
 */
export const trustProxySetting = () =>
  z
    .string()
    .default('false')
    .transform((raw, ctx): false | number | string[] => {
      const s = raw.trim();
      if (s === 'false' || s === '0') return false;
      if (/^\d+$/.test(s)) {
        const hops = Number(s);
        if (hops <= 10) return hops;
        ctx.addIssue({ code: 'custom', message: 'a hop count is at most 10' });
        return false;
      }
      if (s === 'true') {
        ctx.addIssue({
          code: 'custom',
          message: 'true would believe any X-Forwarded-For; give a hop count or the proxies’ addresses/CIDRs',
        });
        return false;
      }
      const entries = s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      const bad = entries.filter((e) => !isProxyAddress(e));
      if (entries.length === 0 || bad.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `must be false, a hop count or a list of proxy addresses/CIDRs (not: ${bad.join(', ') || raw})`,
        });
      }
      return entries;
    });

/**
 * The settings of a service's transactional outbox relay (libs/messaging `OutboxRelay`), one shape
 * for every service that runs one: spread into its schema.
 */
export const outboxRelayConfigShape = {
  OUTBOX_POLL_MS: env.int(250, 10, 60_000),
  /** The relay's gather window after a write (ADR 0015 §1; 0: a pass per nudge). */
  OUTBOX_GATHER_MS: env.int(0, 0, 1000),
  /**
   * How the relay records what it sent (ADR 0015 §2): `stream` (a change stream, its resume token
   * stored once per pass; sent entries stay in their documents) or `pull` (each sent entry
   * `$pull`ed: a write per document per pass).
   */
  OUTBOX_PROGRESS: z.enum(['pull', 'stream']).default('stream'),
};

/** Settings every service shares: HTTP port, Kafka, logging, zones. */
export const baseConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  KAFKA_BROKERS: env.brokers(),
  KAFKA_CLIENT_ID: z.string().min(1).optional(),
  /** How the service authenticates to Kafka (ADR 0009): SCRAM-SHA-512 by default, as its own principal; `none` only for a broker without SASL. */
  KAFKA_SASL_MECHANISM: z.enum(['scram-sha-512', 'scram-sha-256', 'plain', 'none']).default('scram-sha-512'),
  KAFKA_USERNAME: z.string().min(1).optional(),
  KAFKA_PASSWORD: z.string().min(1).optional(),
  /** Partitions of private topics (tests, benchmarks); registry topics take theirs from libs/messaging topic definitions. */
  KAFKA_TOPIC_PARTITIONS: env.int(3, 1, 64),
  /** Replication of every topic a service creates, and the min.insync.replicas it sets and verifies (local single broker: 1/1; production: 3/2). */
  KAFKA_REPLICATION_FACTOR: env.int(1, 1, 16),
  KAFKA_MIN_INSYNC_REPLICAS: env.int(1, 1, 16),
  /**
   * Partitions a consumer works on at once (each still in order, so per-key order holds). The
   * default covers every partition one instance of any service is assigned (carts reads three
   * 3-partition topics: 9), so no partition waits for another's slow message (issue #17: at 3, a
   * service had at most 3 messages in flight across all the topics it reads).
   */
  KAFKA_PARTITIONS_CONCURRENTLY: env.int(12, 1, 64),
  /**
   * Linger of the services' batch consumers (ADR 0015 §1): after a fetched batch smaller than a
   * full chunk, the next fetch waits this many ms, so it brings what arrived meanwhile as one batch
   * — one bulk write, one majority round trip, one offset commit — instead of a fetch, a write and
   * a commit per record or two. An idle consumer still long-polls (no fetch more often than
   * without it); 0 turns it off. 8 ms by default: at 25–30 checkouts/s, three runs each way on the
   * same servers, +12 % confirmed/s and −10 % CPU per checkout (ADR 0015 "Measured on ca76f0f").
   */
  KAFKA_CONSUMER_LINGER_MS: env.int(8, 0, 1000),
  /**
   * Offset commits of the services' batch consumers at most this often (ADR 0015 §14): the offsets
   * of the chunks handled meanwhile go in one request instead of one request per chunk. Only
   * handled chunks are committed, so a crash redelivers at most this long a stretch (the handlers
   * are idempotent); a stop commits first. 0 (the default): after every chunk — on this host an
   * interval of 1 s cost 25–35 % of the confirmed checkouts per second (same servers, two runs per
   * arm: the awaited commit is what let the next fetch fill, and without it the write groups shrank).
   */
  KAFKA_COMMIT_INTERVAL_MS: env.int(0, 0, 60_000),
  /** Consumer clocks (ADR 0004): the handler timeout must stay below the session timeout. */
  KAFKA_SESSION_TIMEOUT_MS: env.int(30_000, 6_000, 300_000),
  KAFKA_HEARTBEAT_INTERVAL_MS: env.int(3_000, 100, 100_000),
  KAFKA_HANDLER_TIMEOUT_MS: env.int(20_000, 100, 300_000),
  HTTP_BODY_LIMIT: z
    .string()
    .regex(/^\d+(kb|mb)$/)
    .default('256kb'),
  ZONES: env
    .csv('MSK,SPB,EKB')
    .pipe(z.array(z.string().regex(/^[A-Z]{2,8}$/, 'zone codes are upper-case letters'))),
  SHUTDOWN_TIMEOUT_MS: env.int(10_000, 100, 120_000),
  /** OIDC issuer whose access tokens the service accepts (ADR 0007); tools/infra's Keycloak by default. */
  OIDC_ISSUER: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:18080/realms/mobile-world'),
  /** Signing keys; `<issuer>/protocol/openid-connect/certs` unless given (compose: the in-network address). */
  OIDC_JWKS_URL: z.url({ protocol: /^https?$/ }).optional(),
  OIDC_AUDIENCE: z.string().min(1).default('mobile-world-api'),
  OIDC_CLOCK_SKEW_SECONDS: env.int(30, 0, 300),
  /** The issuer's key set is refreshed in the background once it is this old (ADR 0007). */
  OIDC_JWKS_REFRESH_SECONDS: env.int(600, 10, 86_400),
  /** While the issuer is down, the last good key set keeps verifying tokens this long after it was fetched (6 h). */
  OIDC_JWKS_MAX_STALE_SECONDS: env.int(21_600, 60, 7 * 86_400),
  /** Browser origins allowed by CORS, comma-separated; none unless given. */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z.url({ protocol: /^https?$/ }).refine((u) => !u.endsWith('/'), 'an origin has no trailing slash'),
      ),
    ),
  /** Writes (every method but GET) per caller (user, guest session or IP) per minute, per instance. */
  RATE_LIMIT_WRITES_PER_MINUTE: env.int(300, 1, 1_000_000),
  /** Paged list reads and other expensive GETs per caller per minute, per instance. */
  RATE_LIMIT_READS_PER_MINUTE: env.int(120, 1, 1_000_000),
  /** New guest sessions (carts POST /guest-sessions) per client address per hour, per instance. */
  RATE_LIMIT_GUEST_SESSIONS_PER_HOUR: env.int(30, 1, 1_000_000),
  /** Callers each limiter remembers; past it a new caller gets 503 COMMON.OVERLOADED instead of evicting a throttled one. */
  RATE_LIMIT_MAX_KEYS: env.int(50_000, 100, 10_000_000),
  /** Which proxies may name the client in X-Forwarded-For (express `trust proxy`): false | hop count | addresses/CIDRs. */
  TRUST_PROXY: trustProxySetting(),
  /** Tracing (ADR 0014): read before the app loads by startTracing, validated here too. */
  ...tracingConfigSchema.shape,
});
export type BaseConfig = z.infer<typeof baseConfigSchema>;
