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
  // the saga's topics are consumed a partition batch at a time by its own consumer (SagaConsumer), not Nest's transport
  consumer: false,
});
