import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { from, type Observable, switchMap } from 'rxjs';
import { CALLER, type Caller } from '@mw/platform';
import { UserSessionsService } from './user-sessions.service';

/**
 * Before any HTTP operation of a signed-in caller: the first request of a Keycloak session records
 * the session and a LOGIN (ADR 0061). Runs after the edge guard verified the token.
 */
@Injectable()
export class SignInInterceptor implements NestInterceptor {
  constructor(private readonly sessions: UserSessionsService) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() !== 'http') return next.handle();
    const caller = ctx.switchToHttp().getRequest<Request & { [CALLER]?: Caller }>()[CALLER];
    if (caller?.kind !== 'user' || !caller.sid) return next.handle();
    return from(this.sessions.signedIn(caller)).pipe(switchMap(() => next.handle()));
  }
}
