import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { ActivityModule } from '../activity/activity.module';
import type { CartsConfig } from '../config';
import { CARTS_CONFIG } from '../config.token';
import { GUEST_SESSIONS, guestSessionsOf } from './guest-sessions';
import { SessionsController } from './sessions.controller';
import { SignInInterceptor } from './sign-in.interceptor';
import { UserSessionsRepository } from './user-sessions.repository';
import { UserSessionsService } from './user-sessions.service';

@Module({
  imports: [ActivityModule],
  controllers: [SessionsController],
  providers: [
    {
      provide: GUEST_SESSIONS,
      inject: [CARTS_CONFIG],
      useFactory: (config: Readonly<CartsConfig>) => guestSessionsOf(config),
    },
    UserSessionsRepository,
    UserSessionsService,
    { provide: APP_INTERCEPTOR, useClass: SignInInterceptor },
  ],
  exports: [GUEST_SESSIONS, UserSessionsRepository],
})
export class SessionsModule {}
