import './instrument';
import 'reflect-metadata';
import { bootstrapService } from '@mw/platform';
import { api } from './api';
import { AppModule } from './app.module';
import { loadOrdersConfig } from './config';

bootstrapService({
  name: 'orders',
  api,
  loadConfig: loadOrdersConfig,
  rootModule: AppModule.register,
});
