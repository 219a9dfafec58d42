/**
 * TokenVerifier against the project's real Keycloak (tools/infra). Each run creates its own realm
 * (so rotating keys never disturbs other suites), issues real tokens with a password grant, then
 * deletes the realm. No token is signed by the test.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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

const grant = (extra: Record<string, string> = {}): Promise<Record<string, unknown>> =>
  form(`${issuer}/protocol/openid-connect/token`, {
    grant_type: 'password',
    client_id: 'app',
    username: 'uma',
    password: 'pw',
    ...extra,
  });
const token = async (): Promise<string> => String((await grant())['access_token']);

/** Adds a new RS256 key at the issuer that outranks the existing one: new tokens carry its kid. */
async function rotateKey(name: string, priority: number): Promise<void> {
  const { id: realmId } = (await (await admin('GET', `/realms/${realm}`)).json()) as { id: string };
  await admin('POST', `/realms/${realm}/components`, {
    name,
    providerId: 'rsa-generated',
    providerType: 'org.keycloak.keys.KeyProvider',
    parentId: realmId,
    config: { priority: [String(priority)], algorithm: ['RS256'], keySize: ['2048'] },
  });
}

type JwksMode = 'pass' | 'down' | '502' | 'not-json' | 'empty';

/**
 * A real HTTP server in front of the realm's JWKS that the test controls: it relays Keycloak's key
 * set, or drops the connection, answers 502, answers HTML, or an empty key set. Counts fetches.
 */
class JwksFront {
  mode: JwksMode = 'pass';
  fetches = 0;
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.fetches++;
      switch (this.mode) {
        case 'down':
          req.socket.destroy();
          return;
        case '502':
          res
            .writeHead(502, { 'content-type': 'text/html' })
            .end('<html><body>502 Bad Gateway</body></html>');
          return;
        case 'not-json':
          res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
          return;
        case 'empty':
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
          return;
        case 'pass':
          fetch(`${issuer}/protocol/openid-connect/certs`)
            .then(async (r) =>
              res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text()),
            )
            .catch(() => req.socket.destroy());
      }
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}/certs`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

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

  // a realm's deletion takes Keycloak seconds, more on a loaded machine (5 s, jest's default, was once not enough)
  afterAll(async () => {
    await admin('DELETE', `/realms/${realm}`).catch(() => undefined);
  }, 60_000);

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
    await rotateKey('rotated', 500);
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

  it('refuses an ID token of the same issuer and audience (typ "ID", not a bearer access token)', async () => {
    const answer = await grant({ scope: 'openid' });
    const idToken = String(answer['id_token']);
    expect(payloadOf(idToken)['typ']).toBe('ID');
    // the ID token's audience is the client, so a verifier for that audience would otherwise accept it
    const forClient = new TokenVerifier({ ...settings, audience: 'app' });
    expect(await refusal(forClient, idToken)).toBe('AUTH.INVALID_TOKEN unauthenticated');
    expect(payloadOf(String(answer['access_token']))['typ']).toBe('Bearer');
    expect(await refusal(new TokenVerifier(settings), String(answer['access_token']))).toBe('accepted');
  });

  describe('while the identity provider is down (a JWKS endpoint the test controls)', () => {
    const front = new JwksFront();
    let jwksUrl = '';
    const verifierOf = (
      opts: { refreshMs?: number; maxStaleMs?: number; cooldownMs?: number } = {},
    ): TokenVerifier =>
      new TokenVerifier(
        { ...settings, jwksUrl },
        {
          jwksRefreshMs: opts.refreshMs ?? 200,
          jwksMaxStaleMs: opts.maxStaleMs ?? 3_600_000,
          jwksCooldownMs: opts.cooldownMs ?? 100,
        },
      );
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

    beforeAll(async () => {
      jwksUrl = await front.start();
    });
    afterAll(() => front.stop());
    beforeEach(() => {
      front.mode = 'pass';
    });

    it('keeps verifying with the last good key set when the JWKS is down for longer than its refresh age', async () => {
      const jwt = await token();
      const verifier = verifierOf();
      expect(await refusal(verifier, jwt)).toBe('accepted');
      front.mode = 'down';
      const fetchesBefore = front.fetches;
      for (let i = 0; i < 4; i++) {
        await sleep(250); // each time older than the refresh age: a background refresh is tried and fails
        expect(await refusal(verifier, jwt)).toBe('accepted');
      }
      expect(front.fetches).toBeGreaterThan(fetchesBefore); // it did try to refresh
      front.mode = 'pass';
    });

    it('answers 503 once the last good key set is older than the stale limit and the JWKS is still down', async () => {
      const jwt = await token();
      const verifier = verifierOf({ refreshMs: 100, maxStaleMs: 400 });
      expect(await refusal(verifier, jwt)).toBe('accepted');
      front.mode = '502';
      await sleep(500);
      expect(await refusal(verifier, jwt)).toBe('AUTH.ISSUER_UNAVAILABLE unavailable');
      front.mode = 'pass';
      await sleep(150); // past the cooldown of the failed attempt
      expect(await refusal(verifier, jwt)).toBe('accepted');
    });

    it.each<[JwksMode, string]>([
      ['502', 'a 502'],
      ['not-json', 'an answer that is not JSON'],
      ['empty', 'an empty key set'],
      ['down', 'a dropped connection'],
    ])(
      'answers 503 AUTH.ISSUER_UNAVAILABLE, never 401, for %s (%s) when no key set is known',
      async (mode) => {
        const jwt = await token();
        front.mode = mode;
        expect(await refusal(verifierOf(), jwt)).toBe('AUTH.ISSUER_UNAVAILABLE unavailable');
      },
    );

    it('during an outage a rotated key is a 503 (it cannot be fetched), the known key still verifies; after it, both do', async () => {
      const verifier = verifierOf({ refreshMs: 3_600_000, cooldownMs: 200 });
      const before = await token();
      expect(await refusal(verifier, before)).toBe('accepted');
      front.mode = '502';
      await rotateKey('rotated-in-outage', 900);
      const after = await token();
      expect(kidOf(after)).not.toBe(kidOf(before));
      expect(await refusal(verifier, after)).toBe('AUTH.ISSUER_UNAVAILABLE unavailable');
      // within the cooldown of that failed refetch: still 503 (not 401), and no new fetch
      const fetches = front.fetches;
      expect(await refusal(verifier, after)).toBe('AUTH.ISSUER_UNAVAILABLE unavailable');
      expect(front.fetches).toBe(fetches);
      expect(await refusal(verifier, before)).toBe('accepted');
      front.mode = 'pass';
      await sleep(250);
      expect(await refusal(verifier, after)).toBe('accepted');
      expect(await refusal(verifier, before)).toBe('accepted');
    });

    it('an unknown kid with the JWKS up is a 401 and refetches at most once per cooldown', async () => {
      const verifier = verifierOf({ refreshMs: 3_600_000, cooldownMs: 60_000 });
      const jwt = await token();
      expect(await refusal(verifier, jwt)).toBe('accepted');
      const main = await form(`${issuerOfMain}/protocol/openid-connect/token`, {
        grant_type: 'password',
        client_id: 'mobile-world-web',
        username: 'alice',
        password: 'demo',
      });
      const foreign = String(main['access_token']);
      const fetches = front.fetches;
      // a foreign kid: issuer and audience are checked after the key is found, so the kid is what fails
      expect(await refusal(verifier, foreign)).toBe('AUTH.INVALID_TOKEN unauthenticated');
      expect(await refusal(verifier, foreign)).toBe('AUTH.INVALID_TOKEN unauthenticated');
      expect(front.fetches - fetches).toBeLessThanOrEqual(1);
    });
  });
});
