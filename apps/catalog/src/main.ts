import 'reflect-metadata';
import { createLogger, exitOnStartupError, runService, assertKafkaReachable } from '@mw/platform';
import { AppModule } from './app.module';
import { loadCatalogConfig } from './config';

/** The catalog API (HTTP only: it produces through its outbox, the projector consumes). */
async function main(): Promise<void> {
  const config = loadCatalogConfig();
  const logger = createLogger('catalog', config.LOG_LEVEL);
  await assertKafkaReachable(config.KAFKA_BROKERS);
  await runService({
    name: 'catalog',
    description: 'Products and the category tree (MongoDB), read side in Cassandra',
    rootModule: AppModule.register(config, logger),
    logger,
    http: { port: config.HTTP_PORT, bodyLimit: config.HTTP_BODY_LIMIT },
    kafka: undefined,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
}

main().catch((e: unknown) => exitOnStartupError('catalog', e));
