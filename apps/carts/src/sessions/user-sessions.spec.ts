import { guestSession, loginSession, SeenSessions, sessionIdOfSid } from './user-sessions';

const t0 = new Date('2026-11-22T10:00:00.000Z');

describe('user sessions', () => {
  it('a Keycloak sid (a uuid) is the session id; another opaque sid maps to the same name-based uuid everywhere', () => {
    expect(sessionIdOfSid('B2A89576-AFFE-4097-9B96-2A3EB9A3ACD5')).toBe(
      'b2a89576-affe-4097-9b96-2a3eb9a3acd5',
    );
    const a = sessionIdOfSid('opaque:session/42');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(sessionIdOfSid('opaque:session/42')).toBe(a);
    expect(sessionIdOfSid('opaque:session/43')).not.toBe(a);
  });

  it('a guest session has no user; a login session has the user; both expire after the session TTL', () => {
    const g = guestSession(
      '6f1c1a52-3b7e-4c55-9c1d-8d8f6c1e2a10',
      new Date('2026-11-29T10:00:00Z'),
      t0,
      86_400,
    );
    expect(g).toMatchObject({ user_id: null, created_at: t0, expires_at: new Date('2026-11-23T10:00:00Z') });
    expect(JSON.parse(g.session_data)).toEqual({
      kind: 'guest',
      token_expires_at: '2026-11-29T10:00:00.000Z',
    });
    const u = loginSession('alice', 'b2a89576-affe-4097-9b96-2a3eb9a3acd5', t0, 60);
    expect(u).toMatchObject({
      session_id: 'b2a89576-affe-4097-9b96-2a3eb9a3acd5',
      user_id: 'alice',
      expires_at: new Date('2026-11-22T10:01:00Z'),
    });
  });

  it('an instance remembers a session as long as its row lives, and at most maxEntries of them', () => {
    const seen = new SeenSessions(60_000, 2);
    seen.add('s1', t0);
    expect(seen.has('s1', new Date(t0.getTime() + 59_999))).toBe(true);
    expect(seen.has('s1', new Date(t0.getTime() + 60_000))).toBe(false);
    seen.add('a', t0);
    seen.add('b', t0);
    seen.add('c', t0);
    expect([seen.has('a', t0), seen.has('b', t0), seen.has('c', t0)]).toEqual([false, true, true]);
  });
});
