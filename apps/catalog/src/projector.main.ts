import './projector.instrument';
import 'reflect-metadata';
import { bootstrapService } from '@mw/platform';
import { loadCatalogConfig } from './config';
import { projectorApi } from './projector-api';
import { ProjectorModule } from './projection/projector.module';

/** The catalog projector: its own process and consumer group (catalog.products.v1 → Cassandra). */
bootstrapService({
  name: 'catalog-projector',
  api: projectorApi,
  loadConfig: loadCatalogConfig,
  rootModule: ProjectorModule.register,
  consumer: false,
  httpPort: (config) => config.PROJECTOR_HTTP_PORT,
});
