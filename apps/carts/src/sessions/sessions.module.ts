import { Module } from '@nestjs/common';
import type { CartsConfig } from '../config';
import { CARTS_CONFIG } from '../config.token';
import { GUEST_SESSIONS, guestSessionsOf } from './guest-sessions';
import { SessionsController } from './sessions.controller';

@Module({
  controllers: [SessionsController],
  providers: [
    {
      provide: GUEST_SESSIONS,
      inject: [CARTS_CONFIG],
      useFactory: (config: Readonly<CartsConfig>) => guestSessionsOf(config),
    },
  ],
  exports: [GUEST_SESSIONS],
})
export class SessionsModule {}
