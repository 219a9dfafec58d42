import { decodeJwtPayload, DEMO_USERS } from '@mw/testing';
import { CartsHarness, sleep, type Who } from '../test/harness';
import { UserSessionsRepository } from './user-sessions.repository';

/**
 * `user_sessions` rows expire by Cassandra TTL (ADR 0061): USER_SESSION_TTL_SECONDS=2 against the
 * real Cassandra instead of the 24 h default, for a guest session and a user's login session.
 */
describe('user sessions (real Cassandra, 2-second TTL)', () => {
  const h = new CartsHarness({ USER_SESSION_TTL_SECONDS: '2' });
  let repo: UserSessionsRepository;
  let alice: Who;

  beforeAll(async () => {
    await h.start();
    repo = h.app.get(UserSessionsRepository);
    alice = await h.as('alice');
  });
  afterAll(() => h.stop());

  it('a guest session is a row without a user, gone after its TTL', async () => {
    const issued = await h.http('POST', '/guest-sessions');
    expect(issued.status).toBe(201);
    const sessionId = issued.body['session_id'] as string;
    const row = await repo.get(sessionId);
    expect(row).toMatchObject({ session_id: sessionId, user_id: null });
    expect(row && row.expires_at.getTime() - row.created_at.getTime()).toBe(2000);
    expect(JSON.parse(row?.session_data ?? '{}')).toEqual({
      kind: 'guest',
      token_expires_at: issued.body['expires_at'],
    });

    await sleep(3000);
    expect(await repo.get(sessionId)).toBeNull();
    // the row is a record, not the credential: the signed guest session still owns its carts for 7 days
    expect(
      (
        await h.http(
          'POST',
          '/carts',
          { zone: 'MSK' },
          { 'x-guest-session': issued.body['guest_session'] as string },
        )
      ).status,
    ).toBe(201);
  });

  it("a user's login session is a row under the token's sid, gone after its TTL", async () => {
    const sid = decodeJwtPayload((alice['authorization'] ?? '').slice('Bearer '.length))['sid'] as string;
    expect((await h.http('GET', '/carts', undefined, alice)).status).toBe(200);
    expect(await repo.get(sid)).toMatchObject({ session_id: sid, user_id: DEMO_USERS.alice.id });
    await sleep(3000);
    expect(await repo.get(sid)).toBeNull();
  });
});
