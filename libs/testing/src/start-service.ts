import type { DynamicModule, INestApplication } from '@nestjs/common';
import {
  type ApiDescription,
  createLogger,
  type EdgeSettings,
  type GuestSessions,
  type KafkaSasl,
  runService,
} from '@mw/platform';
import { testEnv } from './test-env';
import { oidcEnv } from './oidc';

export interface RunningService {
  readonly app: INestApplication;
  /** http://127.0.0.1:<random port> */
  readonly url: string;
}

/**
 * Starts a service exactly as main.ts does (HTTP + Kafka microservice + global filters + the API
 * edge verifying tokens of the project's Keycloak) on a random local port, with the consumer
 * group given (unique per test run).
 */
export async function startService(opts: {
  name: string;
  rootModule: (logger: ReturnType<typeof createLogger>) => DynamicModule;
  brokers: readonly string[];
  /** Principal of the service's Kafka consumer: the test env's (`testEnv().kafkaSasl`) unless given. */
  sasl?: KafkaSasl;
  groupId?: string;
  /** The service's API description (apps/<service>/src/api.ts). */
  api: ApiDescription;
  guestSessions?: GuestSessions;
  /** Edge settings over the test defaults (issuer and audience from the environment, a generous write limit). */
  edge?: Partial<EdgeSettings>;
}): Promise<RunningService> {
  const logger = createLogger(`${opts.name}-test`, 'warn');
  const app = await runService({
    name: opts.name,
    description: `${opts.name} under test`,
    rootModule: opts.rootModule(logger),
    logger,
    http: { port: 0, host: '127.0.0.1', bodyLimit: '256kb' },
    kafka: opts.groupId
      ? {
          brokers: opts.brokers,
          sasl: opts.sasl ?? testEnv().kafkaSasl,
          groupId: opts.groupId,
          clientId: `${opts.name}-test`,
        }
      : undefined,
    shutdownTimeoutMs: 5000,
    edge: {
      api: opts.api,
      settings: { ...testEdgeSettings(), ...opts.edge },
      guestSessions: opts.guestSessions,
    },
  });
  const address = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${address.port}` };
}

/** Edge settings of a service under test: the project's Keycloak from the environment, writes barely limited. */
export function testEdgeSettings(): EdgeSettings {
  const { issuer, audience } = oidcEnv();
  return {
    oidc: { issuer, audience, clockSkewSeconds: 30 },
    corsOrigins: [],
    rateLimitWritesPerMinute: 1_000_000,
    rateLimitReadsPerMinute: 1_000_000,
    rateLimitGuestSessionsPerHour: 1_000_000,
    rateLimitMaxKeys: 50_000,
    trustProxy: false,
  };
}
