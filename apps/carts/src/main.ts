import './instrument';
import 'reflect-metadata';
import { bootstrapService } from '@mw/platform';
import { api } from './api';
import { AppModule } from './app.module';
import { loadCartsConfig } from './config';
import { guestSessionsOf } from './sessions/guest-sessions';

bootstrapService({
  name: 'carts',
  api,
  loadConfig: loadCartsConfig,
  rootModule: AppModule.register,
  guestSessions: guestSessionsOf,
  // order events, products and stock levels are consumed a partition batch at a time by InboundConsumer, not Nest's transport
  consumer: false,
});
