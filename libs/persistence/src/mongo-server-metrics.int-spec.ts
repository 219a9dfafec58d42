import { Registry } from 'prom-client';
import { testEnv } from '@mw/testing';
import { createMongoClient } from './mongo-client';
import { MongoServerMetrics } from './mongo-server-metrics';

/** mongod's figures per member of the real replica set (tools/infra's rs0), as Prometheus reads them. */
describe('MongoServerMetrics (real replica set)', () => {
  const env = testEnv();
  const client = createMongoClient(env.mongoUrl);
  const registry = new Registry();
  let metrics: MongoServerMetrics;

  beforeAll(async () => {
    await client.connect();
    metrics = new MongoServerMetrics(client, env.mongoUrl, registry);
  });

  afterAll(async () => {
    await metrics.close();
    await client.close();
  });

  const series = (text: string, name: string): Map<string, number> =>
    new Map(
      text
        .split('\n')
        .filter((l) => l.startsWith(`${name}{`))
        .map((l) => [l.slice(name.length, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]),
    );

  it('every member: health, lag behind the primary, opcounters and opLatencies from its own serverStatus', async () => {
    const rs = (await client.db('admin').command({ replSetGetStatus: 1 })) as { members: { name: string }[] };
    const names = rs.members.map((m) => m.name).sort();
    const text = await registry.metrics();

    const health = series(text, 'mongodb_replset_member_health');
    expect([...health.keys()].sort()).toEqual(names.map((n) => `{member="${n}"}`));
    expect([...health.values()].every((v) => v === 1)).toBe(true);
    expect([...series(text, 'mongodb_replset_member_primary').values()].filter((v) => v === 1)).toHaveLength(
      1,
    );
    const lag = series(text, 'mongodb_replset_member_lag_seconds');
    expect(lag.size).toBe(names.length);
    expect([...lag.values()].every((v) => v >= 0 && v < 60)).toBe(true);

    for (const n of names) {
      expect(series(text, 'mongodb_opcounters_total').get(`{member="${n}",type="command"}`)).toBeGreaterThan(
        0,
      );
      expect(
        series(text, 'mongodb_op_latency_ops_total').get(`{member="${n}",op="commands"}`),
      ).toBeGreaterThan(0);
      expect(series(text, 'mongodb_op_latency_microseconds_total').has(`{member="${n}",op="writes"}`)).toBe(
        true,
      );
    }
  });
});
