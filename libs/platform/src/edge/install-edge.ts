import type { INestApplication, Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { Express, NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import { sendProblem } from '../http/exception.filter';
import { EdgeGuard } from './edge.guard';
import type { EdgeSettings, TrustProxy } from './edge-settings';
import { endpointOf, endpointsOf } from './endpoint';
import { GUEST_SESSION_HEADER, type GuestSessions } from './guest-session';
import { methodNotAllowed } from './method-not-allowed';
import { buildOpenApi, type ApiDescription } from './openapi';
import { RateLimiter } from './rate-limiter';
import { TokenVerifier } from './token-verifier';

export interface EdgeOptions {
  readonly api: ApiDescription;
  readonly settings: EdgeSettings;
  readonly guestSessions?: GuestSessions | undefined;
  /** Controllers every service has (health, metrics), documented with the service's own. */
  readonly platformControllers: readonly Type<unknown>[];
}

/**
 * Middleware that must run before routing: security headers, CORS from configuration, and 405
 * for an undeclared method on a declared path. Call before the body parser.
 */
export function installEdgeMiddleware(app: INestApplication, opts: EdgeOptions, logger: Logger): void {
  // Which proxies may say who the client is (X-Forwarded-For): req.ip, and with it every per-address limit, rests on it.
  (app.getHttpAdapter().getInstance() as Express).set(
    'trust proxy',
    trustProxyValue(opts.settings.trustProxy),
  );
  const apiHeaders = helmet({
    contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  });
  // Swagger UI needs its own scripts and styles; everything else is JSON and gets `default-src 'none'`.
  const docsHeaders = helmet({ contentSecurityPolicy: false });
  app.use((req: Request, res: Response, next: NextFunction) =>
    (req.path.startsWith('/docs') ? docsHeaders : apiHeaders)(req, res, next),
  );
  app.enableCors({
    origin: opts.settings.corsOrigins.length > 0 ? [...opts.settings.corsOrigins] : false,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // every request header an operation reads: a browser's preflight refuses any other
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'X-Correlation-Id',
      'Traceparent',
      GUEST_SESSION_HEADER,
      'Idempotency-Key',
      'If-Match',
    ],
    exposedHeaders: ['Retry-After', 'X-Correlation-Id', 'Location', 'ETag'],
    maxAge: 600,
  });
  const endpoints = endpointsOf([...opts.api.controllers, ...opts.platformControllers]);
  const mw = methodNotAllowed(() => endpoints);
  app.use((req: Request, res: Response, next: NextFunction) =>
    mw(req, res, (err?: unknown) => (err ? sendProblem(req, res, err, logger) : next())),
  );
}

/** Express's value of `trust proxy` for the setting (false: the socket's address is the client). */
export function trustProxyValue(setting: TrustProxy): boolean | number | string[] {
  return typeof setting === 'number' || setting === false ? setting : [...setting];
}

/** The guard every HTTP request passes (authentication, roles, rate limits). */
export function edgeGuardOf(opts: EdgeOptions, logger: Logger): EdgeGuard {
  const s = opts.settings;
  return new EdgeGuard({
    verifier: new TokenVerifier(s.oidc, {
      onJwksRefreshFailed: (message, ageMs) =>
        logger.warn(
          { jwks_age_ms: ageMs, error: message },
          'JWKS refresh failed; verifying with the last good key set',
        ),
    }),
    limiters: {
      writes: new RateLimiter(s.rateLimitWritesPerMinute, s.rateLimitMaxKeys),
      reads: new RateLimiter(s.rateLimitReadsPerMinute, s.rateLimitMaxKeys),
      'guest-sessions': new RateLimiter(
        s.rateLimitGuestSessionsPerHour,
        s.rateLimitMaxKeys,
        undefined,
        3_600_000,
      ),
    },
    guestSessions: opts.guestSessions,
  });
}

/**
 * After module init: every routed controller of the app must be in the API description and every
 * route must be declared (so the served and committed documents cover exactly what answers), then
 * the document is served at /docs (UI) and /docs/openapi.json.
 */
export function publishApiDocument(app: INestApplication, opts: EdgeOptions): void {
  const described = new Set<Type<unknown>>([...opts.api.controllers, ...opts.platformControllers]);
  const problems: string[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type<unknown> | undefined;
      if (!controller) continue;
      const routes = routedMethodsOf(controller);
      if (routes.length === 0) continue;
      if (!described.has(controller))
        problems.push(`${controller.name} is not in the API description of ${opts.api.name}`);
      for (const [name, handler] of routes) {
        if (!endpointOf(handler))
          problems.push(`${controller.name}.${name} has a route but no @Endpoint() declaration`);
      }
    }
  }
  if (problems.length > 0) throw new Error(`API declaration problems: ${problems.join('; ')}`);
  const document = buildOpenApi(opts.api, opts.platformControllers) as unknown as OpenAPIObject;
  // (the committed docs/api/<service>.openapi.json is serviceOpenApi(api): the same builder and controllers)
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/openapi.json' });
}

/** Methods carrying Nest's route metadata (`path` + `method`): HTTP routes, not Kafka patterns. */
function routedMethodsOf(controller: Type<unknown>): Array<[string, object]> {
  const proto = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(proto)
    .filter((n) => n !== 'constructor' && typeof proto[n] === 'function')
    .map((n): [string, object] => [n, proto[n] as object])
    .filter(
      ([, fn]) =>
        Reflect.getMetadata('path', fn) !== undefined && Reflect.getMetadata('method', fn) !== undefined,
    );
}
