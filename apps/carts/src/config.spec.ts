import { ConfigError } from '@mw/platform';
import { DEV_GUEST_SESSION_SECRET, loadCartsConfig } from './config';

const base = { KAFKA_BROKERS: '127.0.0.1:9092', CASSANDRA_CONTACT_POINTS: '127.0.0.1' };
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
      /^GUEST_SESSION_SECRET: is required in production/,
    );
    expect(
      problems({ ...base, NODE_ENV: 'production', GUEST_SESSION_SECRET: DEV_GUEST_SESSION_SECRET }),
    ).toMatch(/^GUEST_SESSION_SECRET: /);
    expect(
      loadCartsConfig({ ...base, NODE_ENV: 'production', GUEST_SESSION_SECRET: 'p'.repeat(48) })
        .GUEST_SESSION_SECRET,
    ).toBe('p'.repeat(48));
  });

  it('refuses a key shorter than 32 characters anywhere', () => {
    expect(problems({ ...base, NODE_ENV: 'development', GUEST_SESSION_SECRET: 'short' })).toMatch(
      /^GUEST_SESSION_SECRET: must be at least 32/,
    );
  });
});
