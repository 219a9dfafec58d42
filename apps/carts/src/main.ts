import 'reflect-metadata';
import { bootstrapService } from '@mw/platform';
import { AppModule } from './app.module';
import { loadCartsConfig } from './config';

bootstrapService({
  name: 'carts',
  description: 'Guest and user carts in Cassandra with a 7-day TTL',
  loadConfig: loadCartsConfig,
  rootModule: AppModule.register,
});
