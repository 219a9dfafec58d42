import { z } from 'zod';
import { baseConfigSchema, loadConfig } from '@mw/platform';
import { serviceBatchConsumerOptions } from './batch-consumer';

const schema = baseConfigSchema.extend({ KAFKA_GROUP_ID: z.string().min(1).default('orders') });
const required = { KAFKA_BROKERS: '127.0.0.1:19092', KAFKA_USERNAME: 'orders', KAFKA_PASSWORD: 'pw' };

describe("a service's batch consumer options", () => {
  it('linger 8 ms after a batch smaller than a chunk by default (ADR 0015 §1)', () => {
    const options = serviceBatchConsumerOptions(loadConfig(schema, required), 'saga-consumer', ['t'], 64);
    expect(options.lingerMs).toBe(8);
  });

  it('no linger when KAFKA_CONSUMER_LINGER_MS=0, its value otherwise', () => {
    expect(serviceBatchConsumerOptions(loadConfig(schema, { ...required, KAFKA_CONSUMER_LINGER_MS: '0' }), 'c', ['t'], 64).lingerMs).toBeUndefined();
    expect(serviceBatchConsumerOptions(loadConfig(schema, { ...required, KAFKA_CONSUMER_LINGER_MS: '20' }), 'c', ['t'], 64).lingerMs).toBe(20);
  });

  it('offset commits after every chunk by default, at most every KAFKA_COMMIT_INTERVAL_MS when set (ADR 0015 §14)', () => {
    expect(serviceBatchConsumerOptions(loadConfig(schema, required), 'c', ['t'], 64).commitIntervalMs).toBeUndefined();
    expect(serviceBatchConsumerOptions(loadConfig(schema, { ...required, KAFKA_COMMIT_INTERVAL_MS: '1000' }), 'c', ['t'], 64).commitIntervalMs).toBe(1000);
    expect(() => loadConfig(schema, { ...required, KAFKA_COMMIT_INTERVAL_MS: '-1' })).toThrow(/KAFKA_COMMIT_INTERVAL_MS/);
  });
});
