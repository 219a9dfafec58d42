import { z } from 'zod';

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
export function loadConfig<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): Readonly<z.infer<S>> {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((i) => {
        const name = i.path.join('.') || '(environment)';
        return i.code === 'invalid_type' && env[name] === undefined ? `${name} is required` : `${name}: ${i.message}`;
      }),
    );
  }
  return Object.freeze(result.data);
}

/** Env helpers: every variable is a string, these coerce and bound it. */
export const env = {
  port: (def: number) => z.coerce.number().int().min(1).max(65535).default(def),
  int: (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max).default(def),
  csv: (def?: string) =>
    (def === undefined ? z.string() : z.string().default(def)).transform((s, ctx) => {
      const items = s.split(',').map((x) => x.trim()).filter(Boolean);
      if (items.length === 0) ctx.addIssue({ code: 'custom', message: 'must be a non-empty comma-separated list' });
      return items;
    }),
  bool: (def: boolean) => z.enum(['true', 'false', '1', '0']).default(def ? 'true' : 'false').transform((v) => v === 'true' || v === '1'),
  mongoUrl: () => z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// connection string'),
  brokers: () =>
    z.string().transform((s, ctx) => {
      const list = s.split(',').map((x) => x.trim()).filter(Boolean);
      if (list.length === 0 || list.some((b) => !/^[^:\s]+:\d{1,5}$/.test(b))) {
        ctx.addIssue({ code: 'custom', message: 'must be host:port[,host:port...]' });
      }
      return list;
    }),
};

/** Settings every service shares: HTTP port, Kafka, logging, zones. */
export const baseConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  KAFKA_BROKERS: env.brokers(),
  KAFKA_CLIENT_ID: z.string().min(1).optional(),
  KAFKA_TOPIC_PARTITIONS: env.int(3, 1, 64),
  /** Partitions a consumer works on at once (each still in order, so per-key order holds). */
  KAFKA_PARTITIONS_CONCURRENTLY: env.int(3, 1, 64),
  HTTP_BODY_LIMIT: z.string().regex(/^\d+(kb|mb)$/).default('256kb'),
  ZONES: env.csv('MSK,SPB,EKB').pipe(z.array(z.string().regex(/^[A-Z]{2,8}$/, 'zone codes are upper-case letters'))),
  SHUTDOWN_TIMEOUT_MS: env.int(10_000, 100, 120_000),
});
export type BaseConfig = z.infer<typeof baseConfigSchema>;
