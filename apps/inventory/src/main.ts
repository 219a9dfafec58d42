import './instrument';
import 'reflect-metadata';
import { bootstrapService } from '@mw/platform';
import { api } from './api';
import { AppModule } from './app.module';
import { loadInventoryConfig } from './config';

bootstrapService({
  name: 'inventory',
  api,
  loadConfig: loadInventoryConfig,
  rootModule: (config, logger) => AppModule.register(config, logger),
  // inventory's commands are consumed a partition batch at a time by its own consumer (CommandsConsumer), not Nest's transport
  consumer: false,
});
