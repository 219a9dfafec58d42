import './instrument';
import 'reflect-metadata';
import { bootstrapService } from '@mw/platform';
import { api } from './api';
import { AppModule } from './app.module';
import { loadCatalogConfig } from './config';

/** The catalog API (HTTP only: it produces through its outbox, the projector consumes). */
bootstrapService({
  name: 'catalog',
  api,
  loadConfig: loadCatalogConfig,
  rootModule: AppModule.register,
  consumer: false,
});
