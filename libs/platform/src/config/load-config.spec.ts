import { z } from 'zod';
import { baseConfigSchema, ConfigError, env, kafkaSaslOf, loadConfig } from './load-config';

const schema = baseConfigSchema.extend({ HTTP_PORT: env.port(3000), MONGO_URL: env.mongoUrl() });
const creds = { KAFKA_USERNAME: 'orders', KAFKA_PASSWORD: 'pw' };

describe('loadConfig', () => {
  it('parses a valid environment into typed values with defaults', () => {
    const cfg = loadConfig(schema, { KAFKA_BROKERS: '127.0.0.1:19092, 127.0.0.1:19094', MONGO_URL: 'mongodb://x:1', ...creds });
    expect(cfg.KAFKA_BROKERS).toEqual(['127.0.0.1:19092', '127.0.0.1:19094']);
    expect(cfg.HTTP_PORT).toBe(3000);
    expect(cfg.ZONES).toEqual(['MSK', 'SPB', 'EKB']);
    expect(Object.isFrozen(cfg)).toBe(true);
  });

  it('names a missing variable', () => {
    expect(() => loadConfig(schema, { MONGO_URL: 'mongodb://x:1' })).toThrow('KAFKA_BROKERS is required');
  });

  it('names every bad variable in one message', () => {
    try {
      loadConfig(schema, {
        KAFKA_BROKERS: 'nohostport',
        MONGO_URL: 'postgres://x',
        HTTP_PORT: '99999',
        ZONES: 'msk',
      });
      throw new Error('expected ConfigError');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const msg = (e as Error).message;
      for (const name of ['KAFKA_BROKERS', 'MONGO_URL', 'HTTP_PORT', 'ZONES']) expect(msg).toContain(name);
    }
  });

  it('rejects an empty list', () => {
    expect(() => loadConfig(z.object({ L: env.csv() }), { L: ' , ' })).toThrow(/L: must be a non-empty/);
  });

  it('consumer clocks: defaults keep the handler timeout below the session timeout; a handler timeout at or above it is refused', () => {
    const cfg = loadConfig(schema, { KAFKA_BROKERS: '127.0.0.1:19092', MONGO_URL: 'mongodb://x:1', ...creds });
    expect(cfg.KAFKA_HANDLER_TIMEOUT_MS).toBeLessThan(cfg.KAFKA_SESSION_TIMEOUT_MS);
    expect(cfg.KAFKA_PARTITIONS_CONCURRENTLY).toBe(12);
    expect(() =>
      loadConfig(schema, {
        KAFKA_BROKERS: '127.0.0.1:19092',
        MONGO_URL: 'mongodb://x:1',
        KAFKA_SESSION_TIMEOUT_MS: '10000',
        KAFKA_HANDLER_TIMEOUT_MS: '10000',
      }),
    ).toThrow(/KAFKA_HANDLER_TIMEOUT_MS \(10000\) must be below KAFKA_SESSION_TIMEOUT_MS/);
    expect(() =>
      loadConfig(schema, {
        KAFKA_BROKERS: '127.0.0.1:19092',
        MONGO_URL: 'mongodb://x:1',
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        KAFKA_HEARTBEAT_INTERVAL_MS: '3000',
        KAFKA_HANDLER_TIMEOUT_MS: '5000',
      }),
    ).toThrow(/KAFKA_HEARTBEAT_INTERVAL_MS \(3000\) must be at most a third/);
  });

  it('TRUST_PROXY: false by default, a hop count or proxy addresses/CIDRs; true and garbage are refused', () => {
    const base = { KAFKA_BROKERS: '127.0.0.1:19092', MONGO_URL: 'mongodb://x:1', ...creds };
    expect(loadConfig(schema, base).TRUST_PROXY).toBe(false);
    expect(loadConfig(schema, { ...base, TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(
      loadConfig(schema, { ...base, TRUST_PROXY: '10.0.0.0/8, fd00::/8,192.0.2.7, loopback' }).TRUST_PROXY,
    ).toEqual(['10.0.0.0/8', 'fd00::/8', '192.0.2.7', 'loopback']);
    expect(() => loadConfig(schema, { ...base, TRUST_PROXY: 'true' })).toThrow(
      /TRUST_PROXY: true would believe any X-Forwarded-For/,
    );
    expect(() => loadConfig(schema, { ...base, TRUST_PROXY: '10.0.0.0/33' })).toThrow(
      /TRUST_PROXY: .*not: 10.0.0.0\/33/,
    );
    expect(() => loadConfig(schema, { ...base, TRUST_PROXY: 'proxy.internal' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig(schema, { ...base, TRUST_PROXY: '11' })).toThrow(
      /TRUST_PROXY: a hop count is at most 10/,
    );
  });

  it('JWKS: refreshed after 10 min, the last good set kept 6 h; a stale limit below the refresh age is refused', () => {
    const base = { KAFKA_BROKERS: '127.0.0.1:19092', MONGO_URL: 'mongodb://x:1', ...creds };
    const cfg = loadConfig(schema, base);
    expect([cfg.OIDC_JWKS_REFRESH_SECONDS, cfg.OIDC_JWKS_MAX_STALE_SECONDS]).toEqual([600, 21_600]);
    expect(() =>
      loadConfig(schema, { ...base, OIDC_JWKS_REFRESH_SECONDS: '3600', OIDC_JWKS_MAX_STALE_SECONDS: '600' }),
    ).toThrow(/OIDC_JWKS_MAX_STALE_SECONDS: must be at least OIDC_JWKS_REFRESH_SECONDS/);
  });

  it('Kafka authentication: SCRAM-SHA-512 as the given principal by default; its name and password are required unless the mechanism is none', () => {
    const cfg = loadConfig(schema, { KAFKA_BROKERS: '127.0.0.1:19092', MONGO_URL: 'mongodb://x:1', ...creds });
    expect(kafkaSaslOf(cfg)).toEqual({ mechanism: 'scram-sha-512', username: 'orders', password: 'pw' });
    expect(() => loadConfig(schema, { KAFKA_BROKERS: '127.0.0.1:19092', MONGO_URL: 'mongodb://x:1' })).toThrow(
      'KAFKA_USERNAME is required when KAFKA_SASL_MECHANISM is scram-sha-512; KAFKA_PASSWORD is required when KAFKA_SASL_MECHANISM is scram-sha-512',
    );
    expect(() => loadConfig(schema, { KAFKA_BROKERS: '127.0.0.1:19092', MONGO_URL: 'mongodb://x:1', ...creds, KAFKA_SASL_MECHANISM: 'gssapi' })).toThrow(/KAFKA_SASL_MECHANISM/);
    const open = loadConfig(schema, { KAFKA_BROKERS: '127.0.0.1:19092', MONGO_URL: 'mongodb://x:1', KAFKA_SASL_MECHANISM: 'none' });
    expect(kafkaSaslOf(open)).toBeUndefined();
  });
});
