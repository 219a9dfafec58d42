import 'reflect-metadata';
import { bootstrapService } from '@mw/platform';
import { AppModule } from './app.module';
import { loadCatalogConfig } from './config';

/** The catalog API (HTTP only: it produces through its outbox, the projector consumes). */
bootstrapService({
  name: 'catalog',
  description: 'Products and the category tree (MongoDB), read side in Cassandra',
  loadConfig: loadCatalogConfig,
  rootModule: AppModule.register,
  consumer: false,
});
