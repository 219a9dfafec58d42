import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '../errors/app-error';
import { ANONYMOUS, type Caller, decideAccess } from './access';
import { addressKeyOf } from './client-address';
import { CALLER, endpointOf, rateLimitOf, type EndpointSpec, type RateLimitClass } from './endpoint';
import { GUEST_SESSION_HEADER, type GuestSessions } from './guest-session';
import type { RateLimiter } from './rate-limiter';
import { bearerTokenOf, type TokenVerifier } from './token-verifier';

export interface EdgeGuardDeps {
  readonly verifier: TokenVerifier;
  /** One limiter per bucket class (writes, reads, guest-session issuance). */
  readonly limiters: Readonly<Record<RateLimitClass, RateLimiter>>;
  /** Only services with guest sessions (carts) accept `X-Guest-Session`. */
  readonly guestSessions?: GuestSessions | undefined;
}

/**
 * Every HTTP request passes here before validation (ADR 0007): the endpoint's declaration says
 * who may call it; the caller comes from a verified bearer token (or a signed guest session),
 * never from the query or the body. Then the call takes a token from its bucket (writes or
 * expensive reads per caller, guest-session issuance per address). A route without a
 * declaration is refused (fail closed); Kafka handlers are not HTTP and pass.
 */
@Injectable()
export class EdgeGuard implements CanActivate {
  constructor(private readonly deps: EdgeGuardDeps) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (ctx.getType() !== 'http') return true;
    const spec = endpointOf(ctx.getHandler());
    if (!spec) {
      throw new AppError(
        'COMMON.UNDECLARED_ROUTE',
        'internal',
        `${ctx.getClass().name}.${ctx.getHandler().name} has no @Endpoint() declaration`,
      );
    }
    const req = ctx.switchToHttp().getRequest<Request & { [CALLER]?: Caller }>();
    const caller = await this.identify(req, spec);
    const decision = decideAccess(spec.access, caller);
    if (decision === 'unauthenticated') {
      const guest = spec.access.kind === 'user-or-guest' ? ` or an ${GUEST_SESSION_HEADER} header` : '';
      const message = `this operation needs a bearer access token${guest}`;
      throw new AppError(
        'AUTH.UNAUTHENTICATED',
        'unauthenticated',
        message,
        [{ field: 'headers.authorization', message }],
        {
          'WWW-Authenticate': 'Bearer realm="mobile-world"',
        },
      );
    }
    if (decision === 'forbidden') {
      const roles = spec.access.kind === 'user' ? (spec.access.roles ?? []).join(' or ') : '';
      throw new AppError('AUTH.FORBIDDEN', 'forbidden', `this operation needs the role ${roles}`);
    }
    const bucket = rateLimitOf(spec);
    if (bucket) this.limit(bucket, req, caller);
    req[CALLER] = caller;
    return true;
  }

  private async identify(req: Request, spec: EndpointSpec): Promise<Caller> {
    // a public operation needs nobody: its answer never depends on credentials, so none are checked
    if (spec.access.kind === 'public') return ANONYMOUS;
    const token = bearerTokenOf(req.header('authorization'));
    if (token !== undefined) return this.deps.verifier.verify(token);
    if (spec.access.kind === 'optional-user') return ANONYMOUS;
    const guest = req.header(GUEST_SESSION_HEADER);
    if (guest !== undefined && spec.access.kind === 'user-or-guest' && this.deps.guestSessions) {
      return { kind: 'guest', sessionId: this.deps.guestSessions.verify(guest).sessionId };
    }
    return ANONYMOUS;
  }

  /**
   * Callers are keyed by who they are; anonymous callers, and guest-session issuance whoever asks,
   * by their address (`req.ip`: the client's address only as far as TRUST_PROXY allows; IPv6 by /64).
   */
  private limit(bucket: RateLimitClass, req: Request, caller: Caller): void {
    const address = `ip:${addressKeyOf(req.ip)}`;
    const key =
      bucket === 'guest-sessions'
        ? address
        : caller.kind === 'user'
          ? `u:${caller.id}`
          : caller.kind === 'guest'
            ? `g:${caller.sessionId}`
            : address;
    const verdict = this.deps.limiters[bucket].take(key);
    if (verdict.ok) return;
    const headers = { 'Retry-After': String(verdict.retryAfterSeconds) };
    if (verdict.reason === 'full') {
      throw new AppError(
        'COMMON.OVERLOADED',
        'unavailable',
        `too many callers at once; retry in ${verdict.retryAfterSeconds} s`,
        [],
        headers,
      );
    }
    const what = bucket === 'guest-sessions' ? 'new guest sessions from this address' : bucket;
    throw new AppError(
      'COMMON.RATE_LIMITED',
      'rate_limited',
      `too many ${what}; retry in ${verdict.retryAfterSeconds} s`,
      [],
      headers,
    );
  }
}
