/**
 * Real tokens from the project's Keycloak (tools/infra, realm file
 * tools/infra/keycloak/mobile-world-realm.json): a password grant for a demo user, client
 * credentials for the operations client. Nothing here mints or signs a token itself.
 */

export type RealmRole = 'customer' | 'catalog_manager' | 'stock_manager' | 'support' | 'operator';

export interface DemoUserInfo {
  /** Keycloak user id, fixed in the realm file: the `sub` of every token of this user. */
  readonly id: string;
  /** Realm roles the user's access tokens carry in `realm_access.roles` (besides Keycloak's own). */
  readonly roles: readonly RealmRole[];
}

/** The demo users of the realm (password `demo` for all). Kept equal to the realm file by oidc.spec.ts. */
export const DEMO_USERS = {
  alice: { id: 'a11ce000-5eed-4000-8000-000000000001', roles: ['customer'] },
  bob: { id: 'b0b00000-5eed-4000-8000-000000000002', roles: ['customer'] },
  carol: { id: 'ca401000-5eed-4000-8000-000000000003', roles: ['catalog_manager'] },
  stan: { id: '57a40000-5eed-4000-8000-000000000004', roles: ['stock_manager'] },
  sue: { id: '50e00000-5eed-4000-8000-000000000005', roles: ['support'] },
  otto: { id: '07700000-5eed-4000-8000-000000000006', roles: ['operator'] },
} as const satisfies Record<string, DemoUserInfo>;

export type DemoUser = keyof typeof DEMO_USERS;

export const DEMO_PASSWORD = 'demo';
/** Public client with direct access grants (password grant) enabled. */
export const WEB_CLIENT_ID = 'mobile-world-web';
/** Confidential client for operators and Prometheus (service account with role operator). */
export const OPS_CLIENT_ID = 'mobile-world-ops';
/** The ops client's secret as committed in the realm file — a development secret, public on purpose. */
export const OPS_CLIENT_DEV_SECRET = 'mobile-world-ops-dev-secret';
/** Id of the ops client's service-account user: the `sub` of its tokens. */
export const OPS_SERVICE_ACCOUNT_ID = '0b500000-5eed-4000-8000-000000000007';

export interface OidcEnv {
  /** `OIDC_ISSUER`, e.g. http://127.0.0.1:18080/realms/mobile-world. */
  readonly issuer: string;
  /** `OIDC_AUDIENCE` (mobile-world-api). */
  readonly audience: string;
  readonly tokenEndpoint: string;
}

/** The identity provider exported by the jest globalSetup (tools/infra). Fails loudly if absent. */
export function oidcEnv(): OidcEnv {
  const issuer = process.env['OIDC_ISSUER']?.trim().replace(/\/+$/, '');
  if (!issuer) {
    throw new Error(
      'integration test environment missing OIDC_ISSUER: run through "npm test" or "npm run infra:up"',
    );
  }
  return {
    issuer,
    audience: process.env['OIDC_AUDIENCE']?.trim() || 'mobile-world-api',
    tokenEndpoint: `${issuer}/protocol/openid-connect/token`,
  };
}

interface CachedToken {
  readonly token: string;
  /** Epoch ms after which a new token is fetched (60 s before the token expires). */
  readonly renewAt: number;
}

const cache = new Map<string, Promise<CachedToken>>();
const RENEW_BEFORE_EXPIRY_MS = 60_000;

async function grant(form: Record<string, string>, who: string): Promise<CachedToken> {
  const { tokenEndpoint } = oidcEnv();
  const requested = Date.now();
  const res = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  if (!res.ok)
    throw new Error(`token for ${who} refused by ${tokenEndpoint}: ${res.status} ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { access_token?: string; expires_in?: number };
  if (!body.access_token || typeof body.expires_in !== 'number') {
    throw new Error(
      `token endpoint answered without access_token/expires_in for ${who}: ${text.slice(0, 300)}`,
    );
  }
  return { token: body.access_token, renewAt: requested + body.expires_in * 1000 - RENEW_BEFORE_EXPIRY_MS };
}

/**
 * One token per key in this process, fetched again once it is within 60 s of expiry (or failed) —
 * or, with `validForMs`, once it would be within 60 s of expiry that much later (a benchmark renews
 * its users' tokens between measurements instead of in a burst inside one).
 */
async function cached(key: string, fetchToken: () => Promise<CachedToken>, validForMs = 0): Promise<string> {
  for (;;) {
    const hit = cache.get(key);
    if (hit) {
      const entry = await hit.catch(() => undefined);
      if (entry && Date.now() + validForMs < entry.renewAt) return entry.token;
      if (cache.get(key) !== hit) continue; // another caller is renewing it: wait for that one
    }
    const pending = fetchToken();
    cache.set(key, pending);
    try {
      return (await pending).token;
    } catch (err) {
      if (cache.get(key) === pending) cache.delete(key);
      throw err;
    }
  }
}

/** An access token of any realm user: a real password grant (client mobile-world-web), cached like the others. */
export function passwordToken(username: string, password: string, validForMs = 0): Promise<string> {
  return cached(
    `user:${username}`,
    () => grant({ grant_type: 'password', client_id: WEB_CLIENT_ID, username, password }, username),
    validForMs,
  );
}

/** An access token of a demo user: a real password grant against Keycloak (client mobile-world-web). */
export function accessToken(user: DemoUser): Promise<string> {
  if (!Object.prototype.hasOwnProperty.call(DEMO_USERS, user)) {
    return Promise.reject(
      new Error(`unknown demo user "${String(user)}": one of ${Object.keys(DEMO_USERS).join(', ')}`),
    );
  }
  return passwordToken(user, DEMO_PASSWORD);
}

/** An access token of the operations client (client_credentials, realm role operator). */
export function serviceToken(): Promise<string> {
  return cached(`client:${OPS_CLIENT_ID}`, () =>
    grant(
      { grant_type: 'client_credentials', client_id: OPS_CLIENT_ID, client_secret: OPS_CLIENT_DEV_SECRET },
      OPS_CLIENT_ID,
    ),
  );
}

/** The payload of a JWT, base64url-decoded — NOT verified (verification belongs to the services). */
export function decodeJwtPayload(token: string): Record<string, unknown> {
  const part = token.split('.')[1];
  if (!part) throw new Error('not a JWT (no payload part)');
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** Forgets every cached token (tests of the cache itself). */
export function clearTokenCache(): void {
  cache.clear();
}
