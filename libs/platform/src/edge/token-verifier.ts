import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { AppError } from '../errors/app-error';
import { type Caller, type Role, isRole } from './access';
import { JwksCache, KeySetUnavailable } from './jwks-cache';

export interface OidcSettings {
  /** `iss` every token must carry, e.g. http://127.0.0.1:18080/realms/mobile-world. */
  readonly issuer: string;
  /** Where the signing keys are published; the issuer's Keycloak certs endpoint unless given. */
  readonly jwksUrl?: string | undefined;
  /** An `aud` every token must contain. */
  readonly audience: string;
  /** Accepted clock difference for `exp`/`nbf`/`iat`, seconds. */
  readonly clockSkewSeconds: number;
  /** A key set older than this is refreshed in the background (OIDC_JWKS_REFRESH_SECONDS; 600 unless given). */
  readonly jwksRefreshSeconds?: number | undefined;
  /** The last good key set serves this long while the issuer is down (OIDC_JWKS_MAX_STALE_SECONDS; 6 h unless given). */
  readonly jwksMaxStaleSeconds?: number | undefined;
}

/** Keycloak's `typ` claim of an access token (its ID tokens say "ID", refresh tokens "Refresh"). */
const ACCESS_TOKEN_TYP = 'Bearer';
/** RFC 9068's header `typ` of a JWT access token, for issuers that follow it. */
const ACCESS_TOKEN_HEADER_TYPES: readonly string[] = ['at+jwt', 'application/at+jwt'];

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
 * algorithms only), issuer, audience, expiry with clock skew, and that it is an access token (not
 * an ID or refresh token). Keys come from a `JwksCache`: the last good set survives an outage of
 * the issuer for hours, any failure to fetch keys is a 503, and an unknown `kid` refetches the key
 * set (at most once per cooldown), so key rotation at the issuer needs no restart.
 */
export class TokenVerifier {
  private readonly keys: JwksCache;

  constructor(
    private readonly settings: OidcSettings,
    private readonly options: {
      /** Clock of expiry checks (tests move it). */
      readonly now?: () => Date;
      /** Minimum time between two key-set fetches (an unknown `kid` refetches at most this often). */
      readonly jwksCooldownMs?: number;
      /** Key-set ages in ms (tests use short ones); from the settings' seconds unless given. */
      readonly jwksRefreshMs?: number;
      readonly jwksMaxStaleMs?: number;
      /** Told when a background refresh of the key set fails (the last good set stays in use). */
      readonly onJwksRefreshFailed?: (message: string, ageMs: number) => void;
    } = {},
  ) {
    const onFailed = options.onJwksRefreshFailed;
    this.keys = new JwksCache(jwksUrlOf(settings), {
      refreshMs: options.jwksRefreshMs ?? (settings.jwksRefreshSeconds ?? 600) * 1000,
      maxStaleMs: options.jwksMaxStaleMs ?? (settings.jwksMaxStaleSeconds ?? 6 * 3600) * 1000,
      cooldownMs: options.jwksCooldownMs ?? 30_000,
      timeoutMs: 5_000,
      ...(onFailed ? { onRefreshFailed: (e: Error, age: number) => onFailed(e.message, age) } : {}),
    });
  }

  /** The caller a bearer token names, or an `AUTH.*` 401 error. */
  async verify(token: string): Promise<Caller & { kind: 'user' }> {
    let payload: JWTPayload;
    let headerTyp: unknown;
    try {
      ({
        payload,
        protectedHeader: { typ: headerTyp },
      } = await jwtVerify(token, this.keys.getKey, {
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
    if (
      payload['typ'] !== ACCESS_TOKEN_TYP &&
      !(typeof headerTyp === 'string' && ACCESS_TOKEN_HEADER_TYPES.includes(headerTyp.toLowerCase()))
    ) {
      const typ = typeof payload['typ'] === 'string' ? payload['typ'] : 'none';
      throw unauthenticated('AUTH.INVALID_TOKEN', `not a bearer access token (typ ${typ.slice(0, 20)})`);
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
    if (e instanceof KeySetUnavailable || !(e instanceof joseErrors.JOSEError)) {
      // The key set could not be fetched (connection refused, timeout, 5xx, garbage): the issuer is
      // unreachable, the token may be fine and the service cannot tell (503, retry later).
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
