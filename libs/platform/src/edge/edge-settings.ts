import type { OidcSettings } from './token-verifier';

/** Express's `trust proxy`: false, a hop count, or the addresses/CIDRs of the proxies (TRUST_PROXY). */
export type TrustProxy = false | number | readonly string[];

/** What the API edge of a service is configured with (validated once from the environment). */
export interface EdgeSettings {
  readonly oidc: OidcSettings;
  readonly corsOrigins: readonly string[];
  readonly rateLimitWritesPerMinute: number;
  /** Paged list reads and other expensive GETs per caller per minute (RATE_LIMIT_READS_PER_MINUTE). */
  readonly rateLimitReadsPerMinute: number;
  /** New guest sessions per client address per hour (RATE_LIMIT_GUEST_SESSIONS_PER_HOUR). */
  readonly rateLimitGuestSessionsPerHour: number;
  /** Callers each limiter remembers at most; a new caller beyond it is refused with 503 (RATE_LIMIT_MAX_KEYS). */
  readonly rateLimitMaxKeys: number;
  /** Which proxies' X-Forwarded-For is believed, so `req.ip` is the client's address (TRUST_PROXY). */
  readonly trustProxy: TrustProxy;
}
