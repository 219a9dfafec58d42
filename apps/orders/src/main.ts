import 'reflect-metadata';
import { bootstrapService } from '@mw/platform';
import { AppModule } from './app.module';
import { loadOrdersConfig } from './config';

bootstrapService({
  name: 'orders',
  description: 'Orders (MongoDB) and the checkout saga orchestrator',
  loadConfig: loadOrdersConfig,
  rootModule: AppModule.register,
});
