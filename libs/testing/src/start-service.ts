import type { DynamicModule, INestApplication } from '@nestjs/common';
import { createLogger, runService } from '@mw/platform';

export interface RunningService {
  readonly app: INestApplication;
  /** http://127.0.0.1:<random port> */
  readonly url: string;
}

/**
 * Starts a service exactly as main.ts does (HTTP + Kafka microservice + global filters) on a random
 * local port, with the consumer group given (unique per test run).
 */
export async function startService(opts: {
  name: string;
  rootModule: (logger: ReturnType<typeof createLogger>) => DynamicModule;
  brokers: readonly string[];
  groupId?: string;
}): Promise<RunningService> {
  const logger = createLogger(`${opts.name}-test`, 'warn');
  const app = await runService({
    name: opts.name,
    description: `${opts.name} under test`,
    rootModule: opts.rootModule(logger),
    logger,
    http: { port: 0, host: '127.0.0.1', bodyLimit: '256kb' },
    kafka: opts.groupId ? { brokers: opts.brokers, groupId: opts.groupId, clientId: `${opts.name}-test` } : undefined,
    shutdownTimeoutMs: 5000,
  });
  const address = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${address.port}` };
}
