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
  rootModule: AppModule.register,
});
