import { DEMO_USERS, OPS_CLIENT_DEV_SECRET, OPS_SERVICE_ACCOUNT_ID, type DemoUser } from '@mw/testing';
import { loadConfig } from './config';
import { ensureInfra } from './index';
import { readPidState, serverPaths } from './process';

/**
 * The identity provider as the project's tooling runs it (INFRA=local: Keycloak from Maven Central
 * under .infra/keycloak; containers/external: whatever OIDC_ISSUER names), asked over plain HTTP.
 * Token payloads are only decoded here; verifying signatures is the services' job.
 */
let issuer = '';
let audience = '';

interface TokenAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

async function tokenRequest(form: Record<string, string>): Promise<TokenAnswer> {
  const res = await fetch(`${issuer}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const passwordGrant = (username: string, password = 'demo'): Promise<TokenAnswer> =>
  tokenRequest({ grant_type: 'password', client_id: 'mobile-world-web', username, password });

function decodePart(token: string, index: 0 | 1): Record<string, unknown> {
  const part = token.split('.')[index];
  if (part === undefined) throw new Error(`not a JWT: ${token.slice(0, 40)}`);
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

function accessTokenOf(answer: TokenAnswer): string {
  expect({ status: answer.status, error: answer.body['error_description'] }).toEqual({
    status: 200,
    error: undefined,
  });
  const token = answer.body['access_token'];
  if (typeof token !== 'string') throw new Error(`no access_token in ${JSON.stringify(answer.body)}`);
  expect(token.split('.')).toHaveLength(3);
  return token;
}

/** `aud` is a string for one audience and an array for several. */
const audiences = (payload: Record<string, unknown>): unknown[] =>
  [payload['aud']].flat().filter((a) => a !== undefined);
const realmRoles = (payload: Record<string, unknown>): string[] =>
  ((payload['realm_access'] as { roles?: string[] } | undefined)?.roles ?? []).slice().sort();

beforeAll(async () => {
  const env = await ensureInfra({ servers: ['keycloak'], exportToProcessEnv: false });
  issuer = env['OIDC_ISSUER'] ?? '';
  audience = env['OIDC_AUDIENCE'] ?? '';
}, 360_000);

describe('Keycloak (tools/infra)', () => {
  it('is up through the project tooling and exports OIDC_ISSUER and OIDC_AUDIENCE', () => {
    const cfg = loadConfig();
    expect(audience).toBe('mobile-world-api');
    if (cfg.mode === 'local') {
      expect(issuer).toBe(`http://${cfg.host}:${cfg.ports.keycloak}/realms/mobile-world`);
      expect(readPidState(serverPaths(cfg.infraDir, 'keycloak'), cfg.infraDir).kind).toBe('alive');
    } else {
      expect(issuer).toMatch(/^https?:\/\/.+\/realms\/mobile-world$/);
    }
  });

  it('serves the discovery document naming the issuer, its token endpoint and RS256 keys', async () => {
    const res = await fetch(`${issuer}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc['issuer']).toBe(issuer);
    expect(doc['token_endpoint']).toBe(`${issuer}/protocol/openid-connect/token`);
    expect(doc['jwks_uri']).toBe(`${issuer}/protocol/openid-connect/certs`);
    expect(doc['id_token_signing_alg_values_supported']).toContain('RS256');
    expect(doc['code_challenge_methods_supported']).toContain('S256');
  });

  it('gives alice (password grant) an RS256 access token for the API audience with her fixed id and role customer', async () => {
    const token = accessTokenOf(await passwordGrant('alice'));
    const header = decodePart(token, 0);
    expect(header['alg']).toBe('RS256');
    expect(typeof header['kid']).toBe('string');
    const payload = decodePart(token, 1);
    expect(payload['iss']).toBe(issuer);
    expect(audiences(payload)).toContain('mobile-world-api');
    expect(payload['sub']).toBe(DEMO_USERS.alice.id);
    expect(payload['azp']).toBe('mobile-world-web');
    expect(payload['preferred_username']).toBe('alice');
    expect(realmRoles(payload)).toContain('customer');
    expect(Number(payload['exp']) - Number(payload['iat'])).toBe(900);
  });

  it('gives carol catalog_manager and not customer', async () => {
    const payload = decodePart(accessTokenOf(await passwordGrant('carol')), 1);
    expect(payload['sub']).toBe(DEMO_USERS.carol.id);
    expect(realmRoles(payload)).toContain('catalog_manager');
    expect(realmRoles(payload)).not.toContain('customer');
  });

  it.each(Object.keys(DEMO_USERS) as DemoUser[])(
    'signs %s in with the fixed id and exactly the roles DEMO_USERS lists',
    async (user) => {
      const payload = decodePart(accessTokenOf(await passwordGrant(user)), 1);
      const appRoles = realmRoles(payload).filter(
        (r) => r !== 'offline_access' && r !== 'uma_authorization' && !r.startsWith('default-roles-'),
      );
      expect({ sub: payload['sub'], roles: appRoles }).toEqual({
        sub: DEMO_USERS[user].id,
        roles: [...DEMO_USERS[user].roles].sort(),
      });
      expect(audiences(payload)).toContain('mobile-world-api');
    },
  );

  it('refuses a wrong password with 401 invalid_grant', async () => {
    const answer = await passwordGrant('alice', 'not-demo');
    expect(answer.status).toBe(401);
    expect(answer.body['error']).toBe('invalid_grant');
    expect(answer.body['access_token']).toBeUndefined();
  });

  it('gives mobile-world-ops (client_credentials) an operator token for the API audience', async () => {
    const token = accessTokenOf(
      await tokenRequest({
        grant_type: 'client_credentials',
        client_id: 'mobile-world-ops',
        client_secret: OPS_CLIENT_DEV_SECRET,
      }),
    );
    const payload = decodePart(token, 1);
    expect(decodePart(token, 0)['alg']).toBe('RS256');
    expect(payload['iss']).toBe(issuer);
    expect(payload['azp']).toBe('mobile-world-ops');
    expect(payload['sub']).toBe(OPS_SERVICE_ACCOUNT_ID);
    expect(audiences(payload)).toContain('mobile-world-api');
    expect(realmRoles(payload)).toContain('operator');
  });

  it('refuses the ops client with a wrong secret (401)', async () => {
    const answer = await tokenRequest({
      grant_type: 'client_credentials',
      client_id: 'mobile-world-ops',
      client_secret: 'wrong',
    });
    expect(answer.status).toBe(401);
    expect(answer.body['access_token']).toBeUndefined();
  });
});
