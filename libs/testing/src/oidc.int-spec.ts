import {
  DEMO_USERS,
  accessToken,
  clearTokenCache,
  decodeJwtPayload,
  oidcEnv,
  serviceToken,
  type DemoUser,
} from './oidc';

/** The helpers against the real Keycloak the globalSetup started (tools/infra). */
describe('oidc test helpers', () => {
  afterEach(() => {
    jest.restoreAllMocks();
    clearTokenCache();
  });

  it("accessToken('alice') is a real password-grant token with alice's fixed id, cached in-process", async () => {
    const { issuer, audience } = oidcEnv();
    const first = await accessToken('alice');
    const payload = decodeJwtPayload(first);
    expect(payload['iss']).toBe(issuer);
    expect(payload['sub']).toBe(DEMO_USERS.alice.id);
    expect([payload['aud']].flat()).toContain(audience);
    expect(await accessToken('alice')).toBe(first);
    const [a, b] = await Promise.all([accessToken('bob'), accessToken('bob')]);
    expect(a).toBe(b);
    expect(decodeJwtPayload(a)['sub']).toBe(DEMO_USERS.bob.id);
  });

  it('renews a token only from 60 s before it expires', async () => {
    const first = await accessToken('sue');
    const lifetimeMs =
      (Number(decodeJwtPayload(first)['exp']) - Number(decodeJwtPayload(first)['iat'])) * 1000;
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now + lifetimeMs - 62_000);
    expect(await accessToken('sue')).toBe(first);
    clock.mockReturnValue(now + lifetimeMs - 58_000);
    const renewed = await accessToken('sue');
    expect(renewed).not.toBe(first);
    expect(decodeJwtPayload(renewed)['sub']).toBe(DEMO_USERS.sue.id);
  });

  it('serviceToken() is a client_credentials token of mobile-world-ops with role operator', async () => {
    const payload = decodeJwtPayload(await serviceToken());
    expect(payload['azp']).toBe('mobile-world-ops');
    expect((payload['realm_access'] as { roles: string[] }).roles).toContain('operator');
  });

  it('refuses an unknown demo user without asking Keycloak', async () => {
    await expect(accessToken('mallory' as DemoUser)).rejects.toThrow(/unknown demo user "mallory"/);
  });
});
