import 'reflect-metadata';
import { createLogger, exitOnStartupError, runService, assertKafkaReachable } from '@mw/platform';
import { AppModule } from './app.module';
import { loadCatalogConfig } from './config';

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
    kafka: { brokers: config.KAFKA_BROKERS, groupId: config.KAFKA_GROUP_ID, clientId: config.KAFKA_CLIENT_ID ?? 'catalog' },
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
}

main().catch((e: unknown) => exitOnStartupError('catalog', e));
