import type { OidcSettings } from './token-verifier';

/** What the API edge of a service is configured with (validated once from the environment). */
export interface EdgeSettings {
  readonly oidc: OidcSettings;
  readonly corsOrigins: readonly string[];
  readonly rateLimitWritesPerMinute: number;
}
