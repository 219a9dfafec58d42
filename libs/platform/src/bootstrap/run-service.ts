import { DynamicModule, INestApplication, Module, OnApplicationShutdown, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { KafkaOptions, Transport } from '@nestjs/microservices';
import express from 'express';
import { connect as netConnect } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import type { Logger } from 'pino';
import { type BaseConfig, ConfigError, kafkaSaslOf, type KafkaSasl } from '../config/load-config';
import {
  ConsumerTimeouts,
  ConsumerTimeoutsModule,
  consumerTimeoutProblems,
  defaultConsumerTimeouts,
} from './consumer-timeouts';
import type { EdgeSettings, TrustProxy } from '../edge/edge-settings';
import type { GuestSessions } from '../edge/guest-session';
import { buildOpenApi, type ApiDescription } from '../edge/openapi';
import {
  edgeGuardOf,
  type EdgeOptions,
  installEdgeMiddleware,
  publishApiDocument,
} from '../edge/install-edge';
import { HttpErrorFilter, sendProblem } from '../http/exception.filter';
import { HealthController } from '../health/health';
import { MetricsController } from '../metrics/metrics';
import { correlationMiddleware } from '../http/correlation.middleware';
import { createLogger, JsonLogger } from '../logging/logger';
import { Metrics } from '../metrics/metrics';
import { flushTracing } from '../tracing/flush';
import { fixKafkajsIdleLoop } from '../kafka/kafkajs-idle-loop';
import { isRefusedOutright, isTransientStartError, startRetryDelayMs } from './transient-start';

// every kafkajs client of a service, Nest's Kafka transport included (tulios/kafkajs#1556)
fixKafkajsIdleLoop();

export interface ServiceOptions {
  readonly name: string;
  readonly description: string;
  readonly rootModule: Type<unknown> | DynamicModule;
  readonly logger: Logger;
  readonly http: { readonly port: number; readonly host?: string; readonly bodyLimit: string };
  /** Kafka consumer of this service (the @nestjs/microservices Kafka transport). Omit for HTTP-only processes. */
  readonly kafka?: {
    readonly brokers: readonly string[];
    readonly groupId: string;
    readonly clientId: string;
    /** The service's own principal (ADR 0009); none for a broker without SASL. */
    readonly sasl?: KafkaSasl;
    /** Partitions worked on at once (each in order); 3 unless given. */
    readonly partitionsConcurrently?: number;
  };
  /** Session, heartbeat and handler timeouts of every Kafka consumer of the process (ADR 0004); defaults unless given. */
  readonly consumerTimeouts?: ConsumerTimeouts;
  readonly shutdownTimeoutMs: number;
  /** The API edge (ADR 0007): the service's declared endpoints, token verification, CORS, rate limit. */
  readonly edge: Omit<EdgeOptions, 'platformControllers'>;
}

/** Fails fast with one clear line when the broker is unreachable, instead of kafkajs retry noise. */
export async function assertKafkaReachable(
  brokers: readonly string[],
  sasl: KafkaSasl | undefined,
  timeoutMs = 5000,
): Promise<void> {
  const kafka = new Kafka({
    clientId: 'preflight',
    brokers: [...brokers],
    ...(sasl ? { sasl: { ...sasl } } : {}),
    connectionTimeout: timeoutMs,
    retry: { retries: 2, initialRetryTime: 300 },
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.describeCluster();
  } catch (e) {
    throw new Error(
      `Kafka unreachable at ${brokers.join(',')}: ${(e as Error).message} (start it with: npm run infra:up)`,
      { cause: e },
    );
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Partitions a consumer works on at once when the service does not say (KAFKA_PARTITIONS_CONCURRENTLY's default). */
export const defaultPartitionsConcurrently = 12;

export function kafkaTransportOptions(
  kafka: NonNullable<ServiceOptions['kafka']>,
  timeouts: ConsumerTimeouts = defaultConsumerTimeouts,
): KafkaOptions {
  return {
    transport: Transport.KAFKA,
    options: {
      postfixId: '',
      client: {
        clientId: kafka.clientId,
        brokers: [...kafka.brokers],
        ...(kafka.sasl ? { sasl: { ...kafka.sasl } } : {}),
        logLevel: logLevel.WARN,
        retry: { retries: 8, initialRetryTime: 300 },
      },
      // The consumer runner heartbeats while a handler works or waits for a dependency, so the
      // session timeout only has to cover a stalled process, and each handler attempt ends before it.
      consumer: {
        groupId: kafka.groupId,
        allowAutoTopicCreation: false,
        sessionTimeout: timeouts.sessionTimeoutMs,
        heartbeatInterval: timeouts.heartbeatIntervalMs,
      },
      subscribe: { fromBeginning: true },
      // Partitions are worked on in parallel, each one message at a time: per-key order holds, and
      // one slow aggregate no longer holds up every other partition of the instance.
      run: {
        autoCommit: true,
        partitionsConsumedConcurrently: kafka.partitionsConcurrently ?? defaultPartitionsConcurrently,
      },
      // Keep message values as Buffers: the consumer runner validates them and dead-letters the original bytes.
      parser: { keepBinary: true },
    },
  };
}

@Module({})
class ServiceRootModule implements OnApplicationShutdown {
  /** Spans still queued are sent before the process exits (ADR 0014). */
  async onApplicationShutdown(): Promise<void> {
    await flushTracing();
  }
}

/** Controllers every service process has (PlatformModule), documented with the service's own. */
export const PLATFORM_CONTROLLERS = [HealthController, MetricsController] as const;

/** The OpenAPI document a service serves at /docs/openapi.json and commits under docs/api/. */
export function serviceOpenApi(api: ApiDescription): Record<string, unknown> {
  return buildOpenApi(api, PLATFORM_CONTROLLERS);
}

/**
 * Creates and starts a service: JSON logs, correlation ids, body limits, error filter,
 * Swagger at /docs, /health and /metrics, the Kafka microservice connected with
 * inheritAppConfig before listen(), and graceful shutdown on SIGTERM/SIGINT.
 */
export async function runService(opts: ServiceOptions): Promise<INestApplication> {
  const timeouts = opts.consumerTimeouts ?? defaultConsumerTimeouts;
  const problems = consumerTimeoutProblems(timeouts);
  if (problems.length > 0) throw new ConfigError(problems);
  // The service's consumer timeouts, visible to every module (the consumer runner bounds handlers with them).
  const root: DynamicModule = {
    module: ServiceRootModule,
    imports: [opts.rootModule, ConsumerTimeoutsModule.forRoot(timeouts)],
  };
  const app = await NestFactory.create(root, {
    logger: new JsonLogger(opts.logger),
    bodyParser: false,
    abortOnError: false,
  });
  const edge: EdgeOptions = { ...opts.edge, platformControllers: PLATFORM_CONTROLLERS };
  app.use(correlationMiddleware);
  app.use(app.get(Metrics).middleware);
  installEdgeMiddleware(app, edge, opts.logger);
  const json = express.json({ limit: opts.http.bodyLimit, strict: true });
  // body-parser errors (too large, malformed) are answered here: express middleware errors never reach Nest's filters
  app.use((req: express.Request, res: express.Response, next: express.NextFunction) =>
    json(req, res, (err?: unknown) => (err ? sendProblem(req, res, err, opts.logger) : next())),
  );
  app.useGlobalFilters(new HttpErrorFilter(opts.logger));
  app.useGlobalGuards(edgeGuardOf(edge, opts.logger));
  app.enableShutdownHooks();
  publishApiDocument(app, edge);

  if (opts.kafka) {
    app.connectMicroservice(kafkaTransportOptions(opts.kafka, timeouts), { inheritAppConfig: true });
  }
  try {
    // Module init first (connections, topics, indexes), then consumers, then HTTP.
    await app.init();
    if (opts.kafka) await app.startAllMicroservices();
    await app.listen(opts.http.port, opts.http.host ?? '0.0.0.0');
  } catch (e) {
    // what this attempt opened is closed (its connections, consumers, timers) before the caller retries or exits
    await app.close().catch(() => undefined);
    throw e;
  }
  opts.logger.info(
    { port: opts.http.port, docs: `/docs`, kafka_group: opts.kafka?.groupId },
    `${opts.name} ready`,
  );
  return app;
}

/** Prints one clear line (no stack unless DEBUG is set) and exits 1. */
export function exitOnStartupError(service: string, error: unknown): never {
  const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
  process.stderr.write(`[${service}] cannot start: ${message}\n`);
  // eslint-disable-next-line no-restricted-syntax -- read before (and without) a valid config
  if (process.env['DEBUG'] && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  process.exit(1);
}

/** The settings every service's config provides to the bootstrap. */
export interface ServiceConfig {
  readonly HTTP_PORT: number;
  readonly HTTP_BODY_LIMIT: string;
  readonly KAFKA_BROKERS: readonly string[];
  readonly KAFKA_CLIENT_ID?: string | undefined;
  readonly KAFKA_SASL_MECHANISM: BaseConfig['KAFKA_SASL_MECHANISM'];
  readonly KAFKA_USERNAME?: string | undefined;
  readonly KAFKA_PASSWORD?: string | undefined;
  readonly KAFKA_PARTITIONS_CONCURRENTLY: number;
  readonly KAFKA_SESSION_TIMEOUT_MS: number;
  readonly KAFKA_HEARTBEAT_INTERVAL_MS: number;
  readonly KAFKA_HANDLER_TIMEOUT_MS: number;
  readonly KAFKA_GROUP_ID: string;
  readonly LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly SHUTDOWN_TIMEOUT_MS: number;
  readonly OIDC_ISSUER: string;
  readonly OIDC_JWKS_URL?: string | undefined;
  readonly OIDC_AUDIENCE: string;
  readonly OIDC_CLOCK_SKEW_SECONDS: number;
  readonly OIDC_JWKS_REFRESH_SECONDS: number;
  readonly OIDC_JWKS_MAX_STALE_SECONDS: number;
  readonly CORS_ORIGINS: readonly string[];
  readonly RATE_LIMIT_WRITES_PER_MINUTE: number;
  readonly RATE_LIMIT_READS_PER_MINUTE: number;
  readonly RATE_LIMIT_GUEST_SESSIONS_PER_HOUR: number;
  readonly RATE_LIMIT_MAX_KEYS: number;
  readonly TRUST_PROXY: TrustProxy;
}

/** The API-edge settings of a validated config (ADR 0007). */
export function edgeSettingsOf(config: ServiceConfig): EdgeSettings {
  return {
    oidc: {
      issuer: config.OIDC_ISSUER,
      jwksUrl: config.OIDC_JWKS_URL,
      audience: config.OIDC_AUDIENCE,
      clockSkewSeconds: config.OIDC_CLOCK_SKEW_SECONDS,
      jwksRefreshSeconds: config.OIDC_JWKS_REFRESH_SECONDS,
      jwksMaxStaleSeconds: config.OIDC_JWKS_MAX_STALE_SECONDS,
    },
    corsOrigins: config.CORS_ORIGINS,
    rateLimitWritesPerMinute: config.RATE_LIMIT_WRITES_PER_MINUTE,
    rateLimitReadsPerMinute: config.RATE_LIMIT_READS_PER_MINUTE,
    rateLimitGuestSessionsPerHour: config.RATE_LIMIT_GUEST_SESSIONS_PER_HOUR,
    rateLimitMaxKeys: config.RATE_LIMIT_MAX_KEYS,
    trustProxy: config.TRUST_PROXY,
  };
}

/** The consumer timeouts of a validated config. */
export function consumerTimeoutsOf(
  config: Pick<
    ServiceConfig,
    'KAFKA_SESSION_TIMEOUT_MS' | 'KAFKA_HEARTBEAT_INTERVAL_MS' | 'KAFKA_HANDLER_TIMEOUT_MS'
  >,
): ConsumerTimeouts {
  return {
    sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
    heartbeatIntervalMs: config.KAFKA_HEARTBEAT_INTERVAL_MS,
    handlerTimeoutMs: config.KAFKA_HANDLER_TIMEOUT_MS,
  };
}

/**
 * A service's whole main(): validate config once, check the broker, start the app.
 * Any start-up failure becomes one line on stderr and exit code 1.
 */
/** True when a plain TCP connect to every `host:port` is refused (nothing listens at any of them). */
export async function everyAddressRefuses(addresses: readonly string[], timeoutMs = 2000): Promise<boolean> {
  const refused = await Promise.all(
    addresses.map(
      (address) =>
        new Promise<boolean>((resolve) => {
          const i = address.lastIndexOf(':');
          const socket = netConnect({ host: address.slice(0, i), port: Number(address.slice(i + 1)) });
          const done = (v: boolean): void => {
            socket.destroy();
            resolve(v);
          };
          socket.setTimeout(timeoutMs, () => done(false));
          socket.once('connect', () => done(false));
          socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED'));
        }),
    ),
  );
  return refused.every(Boolean);
}

/** How long a start keeps trying again while its dependencies are transiently unavailable (a failover takes 10–30 s). */
export const START_RETRY_MS = 180_000;

export function bootstrapService<C extends ServiceConfig>(spec: {
  readonly name: string;
  /** The process's HTTP API: its controllers and their endpoint declarations (ADR 0007). */
  readonly api: ApiDescription;
  readonly loadConfig: () => Readonly<C>;
  readonly rootModule: (config: Readonly<C>, logger: Logger) => DynamicModule;
  /** false for a process without a Kafka consumer (HTTP only). */
  readonly consumer?: boolean;
  /** Port of this process when it is not HTTP_PORT (a second process of the same service). */
  readonly httpPort?: (config: Readonly<C>) => number;
  /** Signed guest sessions the process accepts (carts). */
  readonly guestSessions?: (config: Readonly<C>) => GuestSessions;
}): void {
  const start = async (): Promise<void> => {
    const config = spec.loadConfig();
    const logger = createLogger(spec.name, config.LOG_LEVEL);
    // A dependency met mid-failover (an election, a broker or node restarting, a reset on the way to the
    // brokers) is waited for, up to START_RETRY_MS; anything else (configuration, a refused statement, a
    // broker address where nothing listens) still ends the start at once.
    const deadline = Date.now() + START_RETRY_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        await assertKafkaReachable(config.KAFKA_BROKERS, kafkaSaslOf(config));
        await startOnce(config, logger);
        return;
      } catch (e) {
        if (!isTransientStartError(e) || Date.now() >= deadline) throw e;
        // nothing listens at any broker address (not started, a wrong address): say so now. One broker of
        // several refusing (SIGKILLed a moment ago) is a failover like any other and is waited out.
        if (isRefusedOutright(e) && (await everyAddressRefuses(config.KAFKA_BROKERS))) throw e;
        const waitMs = startRetryDelayMs(attempt);
        logger.warn({ err: (e as Error).message, error_name: (e as Error).name, attempt, retry_in_ms: waitMs }, `${spec.name} start met a dependency that is not ready; starting again`);
        await new Promise((r) => setTimeout(r, waitMs));
      }
    }
  };
  const startOnce = async (config: Readonly<C>, logger: Logger): Promise<void> => {
    await runService({
      name: spec.name,
      description: spec.api.description,
      rootModule: spec.rootModule(config, logger),
      logger,
      http: { port: spec.httpPort?.(config) ?? config.HTTP_PORT, bodyLimit: config.HTTP_BODY_LIMIT },
      kafka:
        spec.consumer === false
          ? undefined
          : {
              brokers: config.KAFKA_BROKERS,
              groupId: config.KAFKA_GROUP_ID,
              clientId: config.KAFKA_CLIENT_ID ?? spec.name,
              sasl: kafkaSaslOf(config),
              partitionsConcurrently: config.KAFKA_PARTITIONS_CONCURRENTLY,
            },
      consumerTimeouts: consumerTimeoutsOf(config),
      shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
      edge: { api: spec.api, settings: edgeSettingsOf(config), guestSessions: spec.guestSessions?.(config) },
    });
  };
  start().catch((e: unknown) => exitOnStartupError(spec.name, e));
}
