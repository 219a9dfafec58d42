import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { AppError } from '../errors/app-error';
import { type Caller, type Role, isRole } from './access';

export interface OidcSettings {
  /** `iss` every token must carry, e.g. http://127.0.0.1:18080/realms/mobile-world. */
  readonly issuer: string;
  /** Where the signing keys are published; the issuer's Keycloak certs endpoint unless given. */
  readonly jwksUrl?: string | undefined;
  /** An `aud` every token must contain. */
  readonly audience: string;
  /** Accepted clock difference for `exp`/`nbf`/`iat`, seconds. */
  readonly clockSkewSeconds: number;
}

/** The JWKS endpoint of an issuer (Keycloak's path) when the configuration does not name one. */
export function jwksUrlOf(settings: OidcSettings): string {
  return settings.jwksUrl ?? `${settings.issuer.replace(/\/+$/, '')}/protocol/openid-connect/certs`;
}

const unauthenticated = (code: string, message: string): AppError =>
  new AppError(code, 'unauthenticated', message, [{ field: 'headers.authorization', message }], {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description="${message.replace(/"/g, "'")}"`,
  });

/**
 * Verifies OAuth 2 access tokens (JWT) against the issuer's JWKS with `jose`: signature (asymmetric
 * algorithms only), issuer, audience, expiry with clock skew. Keys are cached; a token signed with
 * an unknown `kid` makes jose refetch the key set (at most once per cooldown), so key rotation at
 * the issuer needs no restart.
 */
export class TokenVerifier {
  private readonly keys: ReturnType<typeof createRemoteJWKSet>;

  constructor(
    private readonly settings: OidcSettings,
    private readonly options: {
      /** Clock of expiry checks (tests move it). */
      readonly now?: () => Date;
      /** Minimum time between two key-set fetches (an unknown `kid` refetches at most this often). */
      readonly jwksCooldownMs?: number;
    } = {},
  ) {
    this.keys = createRemoteJWKSet(new URL(jwksUrlOf(settings)), {
      cacheMaxAge: 10 * 60_000,
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
      timeoutDuration: 5_000,
    });
  }

  /** The caller a bearer token names, or an `AUTH.*` 401 error. */
  async verify(token: string): Promise<Caller & { kind: 'user' }> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        clockTolerance: this.settings.clockSkewSeconds,
        algorithms: [
          'RS256',
          'RS384',
          'RS512',
          'PS256',
          'PS384',
          'PS512',
          'ES256',
          'ES384',
          'ES512',
          'EdDSA',
        ],
        requiredClaims: ['sub', 'exp'],
        ...(this.options.now ? { currentDate: this.options.now() } : {}),
      }));
    } catch (e) {
      throw this.toAuthError(e);
    }
    const sub = payload.sub;
    if (typeof sub !== 'string' || sub.length === 0 || sub.length > 128) {
      throw unauthenticated('AUTH.INVALID_TOKEN', 'token has no usable subject');
    }
    const sid =
      typeof payload['sid'] === 'string' && payload['sid'].length > 0 && payload['sid'].length <= 128
        ? payload['sid']
        : undefined;
    return { kind: 'user', id: sub, roles: rolesOf(payload), sid };
  }

  private toAuthError(e: unknown): AppError {
    if (e instanceof joseErrors.JWTExpired)
      return unauthenticated('AUTH.TOKEN_EXPIRED', 'access token expired');
    if (e instanceof joseErrors.JWTClaimValidationFailed) {
      return unauthenticated('AUTH.INVALID_TOKEN', `token claim ${e.claim} is not acceptable`);
    }
    if (
      e instanceof joseErrors.JWKSTimeout ||
      e instanceof joseErrors.JWKSInvalid ||
      !(e instanceof joseErrors.JOSEError)
    ) {
      // The key set could not be fetched (connection refused, timeout, garbage): the issuer is unreachable,
      // the token may be fine and the service cannot tell (503, retry later).
      return new AppError(
        'AUTH.ISSUER_UNAVAILABLE',
        'unavailable',
        'cannot fetch the signing keys of the identity provider',
      );
    }
    if (e instanceof joseErrors.JWKSNoMatchingKey)
      return unauthenticated('AUTH.INVALID_TOKEN', 'token signed with an unknown key');
    return unauthenticated('AUTH.INVALID_TOKEN', 'token signature or format is not valid');
  }
}

/** Realm roles (Keycloak puts them under `realm_access.roles`); unknown role names are ignored. */
export function rolesOf(payload: JWTPayload): ReadonlySet<Role> {
  const realm = (payload as { realm_access?: { roles?: unknown } }).realm_access;
  const names = Array.isArray(realm?.roles) ? realm.roles : [];
  return new Set(names.filter((r): r is Role => typeof r === 'string' && isRole(r)));
}

/** The token of an `Authorization: Bearer <token>` header; undefined when absent, 401 when malformed. */
export function bearerTokenOf(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  const match = /^Bearer ([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+)$/.exec(header.trim());
  if (!match?.[1])
    throw unauthenticated('AUTH.MALFORMED_AUTHORIZATION', 'Authorization must be "Bearer <JWT>"');
  return match[1];
}
