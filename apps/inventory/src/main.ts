import 'reflect-metadata';
import { assertKafkaReachable, createLogger, exitOnStartupError } from '@mw/platform';
import { loadInventoryConfig } from './config';
import { startInventory } from './service';

async function main(): Promise<void> {
  const config = loadInventoryConfig();
  const logger = createLogger('inventory', config.LOG_LEVEL);
  await assertKafkaReachable(config.KAFKA_BROKERS);
  await startInventory(config, logger);
}

main().catch((e: unknown) => exitOnStartupError('inventory', e));
