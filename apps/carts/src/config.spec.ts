import { ConfigError } from '@mw/platform';
import { DEV_GUEST_SESSION_SECRET, loadCartsConfig } from './config';

const unset = { KAFKA_BROKERS: '127.0.0.1:9092', KAFKA_USERNAME: 'carts', KAFKA_PASSWORD: 'pw', CASSANDRA_CONTACT_POINTS: '127.0.0.1' };
const base = { ...unset, NODE_ENV: 'test' };
const problems = (env: Record<string, string>): string => {
  try {
    loadCartsConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems.join('; ');
    throw e;
  }
  return 'none';
};

describe('carts configuration: guest sessions', () => {
  it('development and tests run on the documented development key, with sessions as long as carts (7 days)', () => {
    for (const NODE_ENV of ['development', 'test']) {
      const c = loadCartsConfig({ ...base, NODE_ENV });
      expect(c.GUEST_SESSION_SECRET).toBe(DEV_GUEST_SESSION_SECRET);
      expect(c.GUEST_SESSION_TTL_SECONDS).toBe(c.CART_TTL_SECONDS);
      expect(c.GUEST_SESSION_TTL_SECONDS).toBe(604_800);
    }
  });

  it('production requires a key of its own: missing or the development default stops the service, naming the variable', () => {
    expect(problems({ ...base, NODE_ENV: 'production' })).toMatch(
      /^GUEST_SESSION_SECRET: is required unless NODE_ENV is development or test/,
    );
    expect(
      problems({ ...base, NODE_ENV: 'production', GUEST_SESSION_SECRET: DEV_GUEST_SESSION_SECRET }),
    ).toMatch(/^GUEST_SESSION_SECRET: /);
    expect(
      loadCartsConfig({ ...base, NODE_ENV: 'production', GUEST_SESSION_SECRET: 'p'.repeat(48) })
        .GUEST_SESSION_SECRET,
    ).toBe('p'.repeat(48));
  });

  it('fails closed when NODE_ENV is unset: the development key is refused, a key of its own is required', () => {
    expect(problems(unset)).toMatch(
      /^GUEST_SESSION_SECRET: is required unless NODE_ENV is development or test/,
    );
    expect(problems({ ...unset, GUEST_SESSION_SECRET: DEV_GUEST_SESSION_SECRET })).toMatch(
      /^GUEST_SESSION_SECRET: /,
    );
    expect(loadCartsConfig({ ...unset, GUEST_SESSION_SECRET: 'u'.repeat(40) }).GUEST_SESSION_SECRET).toBe(
      'u'.repeat(40),
    );
  });

  it('rotation: a previous key and its id come together, with an id of their own', () => {
    const own = { ...base, GUEST_SESSION_SECRET: 'n'.repeat(40), GUEST_SESSION_KEY_ID: 'k2' };
    const c = loadCartsConfig({
      ...own,
      GUEST_SESSION_PREVIOUS_SECRET: 'o'.repeat(40),
      GUEST_SESSION_PREVIOUS_KEY_ID: 'k1',
    });
    expect([c.GUEST_SESSION_KEY_ID, c.GUEST_SESSION_PREVIOUS_KEY_ID]).toEqual(['k2', 'k1']);
    expect(problems({ ...own, GUEST_SESSION_PREVIOUS_SECRET: 'o'.repeat(40) })).toMatch(
      /^GUEST_SESSION_PREVIOUS_KEY_ID: /,
    );
    expect(
      problems({
        ...own,
        GUEST_SESSION_PREVIOUS_SECRET: 'o'.repeat(40),
        GUEST_SESSION_PREVIOUS_KEY_ID: 'k2',
      }),
    ).toMatch(/^GUEST_SESSION_PREVIOUS_KEY_ID: must differ/);
    expect(problems({ ...own, GUEST_SESSION_KEY_ID: 'Key 1' })).toMatch(/^GUEST_SESSION_KEY_ID: /);
  });

  it('refuses a key shorter than 32 characters anywhere', () => {
    expect(problems({ ...base, NODE_ENV: 'development', GUEST_SESSION_SECRET: 'short' })).toMatch(
      /^GUEST_SESSION_SECRET: must be at least 32/,
    );
  });
});

describe('carts configuration: user sessions and activity (ADR 0061)', () => {
  it('defaults: sessions 24 h (seed 003), events kept 90 days, at most 20,000 events per user and day', () => {
    const c = loadCartsConfig({ ...base, NODE_ENV: 'development' });
    expect([c.USER_SESSION_TTL_SECONDS, c.USER_EVENTS_TTL_SECONDS, c.USER_EVENTS_MAX_PER_USER_DAY]).toEqual([
      86_400, 7_776_000, 20_000,
    ]);
  });

  it('refuses a session TTL beyond the table default or none at all, and a zero cap, naming the variable', () => {
    expect(problems({ ...base, USER_SESSION_TTL_SECONDS: '86401' })).toMatch(/^USER_SESSION_TTL_SECONDS: /);
    expect(problems({ ...base, USER_SESSION_TTL_SECONDS: '0' })).toMatch(/^USER_SESSION_TTL_SECONDS: /);
    expect(problems({ ...base, USER_EVENTS_MAX_PER_USER_DAY: '0' })).toMatch(
      /^USER_EVENTS_MAX_PER_USER_DAY: /,
    );
    expect(problems({ ...base, USER_EVENTS_TTL_SECONDS: '59' })).toMatch(/^USER_EVENTS_TTL_SECONDS: /);
    expect(loadCartsConfig({ ...base, USER_SESSION_TTL_SECONDS: '2' }).USER_SESSION_TTL_SECONDS).toBe(2);
  });
});
