/**
 * TokenVerifier against the project's real Keycloak (tools/infra). Each run creates its own realm
 * (so rotating keys never disturbs other suites), issues real tokens with a password grant, then
 * deletes the realm. No token is signed by the test.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors/app-error';
import { TokenVerifier, type OidcSettings } from './token-verifier';

const issuerOfMain = (process.env['OIDC_ISSUER'] ?? '').replace(/\/+$/, '');
const base = issuerOfMain.replace(/\/realms\/[^/]+$/, '');
const realm = `verifier-${randomUUID().slice(0, 8)}`;
const issuer = `${base}/realms/${realm}`;
const AUD = 'mobile-world-api';

async function form(url: string, fields: Record<string, string>): Promise<Record<string, unknown>> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  const body = (await r.json()) as Record<string, unknown>;
  if (!r.ok) throw new Error(`${url}: ${r.status} ${JSON.stringify(body)}`);
  return body;
}

async function admin(method: string, path: string, body?: unknown): Promise<Response> {
  const { access_token } = await form(`${base}/realms/master/protocol/openid-connect/token`, {
    grant_type: 'password',
    client_id: 'admin-cli',
    username: process.env['KEYCLOAK_ADMIN_USERNAME'] ?? 'admin',
    password: process.env['KEYCLOAK_ADMIN_PASSWORD'] ?? 'admin',
  });
  const r = await fetch(`${base}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${String(access_token)}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r;
}

const token = async (): Promise<string> =>
  String(
    (
      await form(`${issuer}/protocol/openid-connect/token`, {
        grant_type: 'password',
        client_id: 'app',
        username: 'uma',
        password: 'pw',
      })
    )['access_token'],
  );

const kidOf = (jwt: string): string =>
  (JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString()) as { kid: string }).kid;
const payloadOf = (jwt: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;

async function refusal(verifier: TokenVerifier, jwt: string): Promise<string> {
  try {
    await verifier.verify(jwt);
  } catch (e) {
    if (e instanceof AppError) return `${e.code} ${e.kind}`;
    throw e;
  }
  return 'accepted';
}

const settings: OidcSettings = { issuer, audience: AUD, clockSkewSeconds: 30 };

describe('TokenVerifier with real Keycloak tokens', () => {
  beforeAll(async () => {
    if (!issuerOfMain)
      throw new Error('OIDC_ISSUER missing: run through npm test (tools/infra starts Keycloak)');
    await admin('POST', '/realms', {
      realm,
      enabled: true,
      sslRequired: 'none',
      accessTokenLifespan: 300,
      roles: { realm: [{ name: 'customer' }, { name: 'support' }] },
      clients: [
        {
          clientId: 'app',
          publicClient: true,
          directAccessGrantsEnabled: true,
          standardFlowEnabled: false,
          protocolMappers: [
            {
              name: 'audience',
              protocol: 'openid-connect',
              protocolMapper: 'oidc-audience-mapper',
              config: {
                'included.custom.audience': AUD,
                'access.token.claim': 'true',
                'id.token.claim': 'false',
              },
            },
          ],
        },
      ],
      users: [
        {
          username: 'uma',
          enabled: true,
          email: 'uma@example.com',
          emailVerified: true,
          firstName: 'Uma',
          lastName: 'Test',
          credentials: [{ type: 'password', value: 'pw', temporary: false }],
          realmRoles: ['customer'],
        },
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await admin('DELETE', `/realms/${realm}`).catch(() => undefined);
  });

  it('accepts a token of the issuer: the subject is the caller, realm roles become roles', async () => {
    const jwt = await token();
    const caller = await new TokenVerifier(settings).verify(jwt);
    expect(caller.id).toBe(payloadOf(jwt)['sub']);
    expect([...caller.roles]).toEqual(['customer']);
    // Keycloak 26 puts the login session's id (`sid`) in access tokens: carts records one LOGIN per session (ADR 0061).
    expect(caller.sid).toEqual(expect.any(String));
    expect(caller.sid).toBe(payloadOf(jwt)['sid']);
  });

  it('refuses another audience, another issuer, a tampered signature', async () => {
    const jwt = await token();
    expect(await refusal(new TokenVerifier({ ...settings, audience: 'someone-else' }), jwt)).toBe(
      'AUTH.INVALID_TOKEN unauthenticated',
    );
    expect(
      await refusal(
        new TokenVerifier({
          ...settings,
          issuer: issuerOfMain,
          jwksUrl: `${issuer}/protocol/openid-connect/certs`,
        }),
        jwt,
      ),
    ).toBe('AUTH.INVALID_TOKEN unauthenticated');
    const [h, p, sig] = jwt.split('.') as [string, string, string];
    const flipped = `${h}.${p}.${sig.slice(0, -4)}${sig.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    expect(await refusal(new TokenVerifier(settings), flipped)).toBe('AUTH.INVALID_TOKEN unauthenticated');
    // a genuine token of the main realm is signed by keys this issuer never published
    const main = await form(`${issuerOfMain}/protocol/openid-connect/token`, {
      grant_type: 'password',
      client_id: 'mobile-world-web',
      username: 'alice',
      password: 'demo',
    });
    expect(await refusal(new TokenVerifier(settings), String(main['access_token']))).toBe(
      'AUTH.INVALID_TOKEN unauthenticated',
    );
  });

  it('refuses an expired token, tolerating the configured clock skew', async () => {
    const jwt = await token();
    const exp = Number(payloadOf(jwt)['exp']) * 1000;
    const at = (ms: number) => new TokenVerifier(settings, { now: () => new Date(ms) });
    expect(await refusal(at(exp + 20_000), jwt)).toBe('accepted');
    expect(await refusal(at(exp + 40_000), jwt)).toBe('AUTH.TOKEN_EXPIRED unauthenticated');
  });

  it('follows a key rotation at the issuer without a restart (refetch on an unknown kid)', async () => {
    const verifier = new TokenVerifier(settings, { jwksCooldownMs: 500 });
    const before = await token();
    await verifier.verify(before); // key set fetched and cached
    const { id: realmId } = (await (await admin('GET', `/realms/${realm}`)).json()) as { id: string };
    await admin('POST', `/realms/${realm}/components`, {
      name: 'rotated',
      providerId: 'rsa-generated',
      providerType: 'org.keycloak.keys.KeyProvider',
      parentId: realmId,
      config: { priority: ['500'], algorithm: ['RS256'], keySize: ['2048'] },
    });
    const after = await token();
    expect(kidOf(after)).not.toBe(kidOf(before));
    await new Promise((r) => setTimeout(r, 600));
    expect((await verifier.verify(after)).id).toBe(payloadOf(after)['sub']);
    expect((await verifier.verify(before)).id).toBe(payloadOf(before)['sub']);
  });

  it('answers 503 (not 401) when the key set cannot be fetched', async () => {
    const jwt = await token();
    const unreachable = new TokenVerifier({ ...settings, jwksUrl: 'http://127.0.0.1:9/certs' });
    expect(await refusal(unreachable, jwt)).toBe('AUTH.ISSUER_UNAVAILABLE unavailable');
  });
});
