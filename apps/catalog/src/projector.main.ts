import 'reflect-metadata';
import { assertKafkaReachable, createLogger, exitOnStartupError, runService } from '@mw/platform';
import { loadCatalogConfig } from './config';
import { ProjectorModule } from './projection/projector.module';

/** The catalog projector: its own process and consumer group (catalog.products.v1 → Cassandra). */
async function main(): Promise<void> {
  const config = loadCatalogConfig();
  const logger = createLogger('catalog-projector', config.LOG_LEVEL);
  await assertKafkaReachable(config.KAFKA_BROKERS);
  await runService({
    name: 'catalog-projector',
    description: 'Projects catalog.products.v1 into the Cassandra read model; /health and /metrics',
    rootModule: ProjectorModule.register(config, logger),
    logger,
    http: { port: config.PROJECTOR_HTTP_PORT, bodyLimit: config.HTTP_BODY_LIMIT },
    kafka: undefined,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  });
}

main().catch((e: unknown) => exitOnStartupError('catalog-projector', e));
