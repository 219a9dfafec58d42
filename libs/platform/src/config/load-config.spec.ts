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
      loadConfig(schema, { KAFKA_BROKERS: 'nohostport', MONGO_URL: 'postgres://x', HTTP_PORT: '99999', ZONES: 'msk' });
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
    expect(cfg.KAFKA_PARTITIONS_CONCURRENTLY).toBe(3);
    expect(() =>
      loadConfig(schema, { KAFKA_BROKERS: '127.0.0.1:19092', MONGO_URL: 'mongodb://x:1', KAFKA_SESSION_TIMEOUT_MS: '10000', KAFKA_HANDLER_TIMEOUT_MS: '10000' }),
    ).toThrow(/KAFKA_HANDLER_TIMEOUT_MS \(10000\) must be below KAFKA_SESSION_TIMEOUT_MS/);
    expect(() =>
      loadConfig(schema, { KAFKA_BROKERS: '127.0.0.1:19092', MONGO_URL: 'mongodb://x:1', KAFKA_SESSION_TIMEOUT_MS: '6000', KAFKA_HEARTBEAT_INTERVAL_MS: '3000', KAFKA_HANDLER_TIMEOUT_MS: '5000' }),
    ).toThrow(/KAFKA_HEARTBEAT_INTERVAL_MS \(3000\) must be at most a third/);
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
