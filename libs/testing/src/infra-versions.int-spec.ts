import * as os from 'node:os';
import { Client } from 'cassandra-driver';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { testEnv } from './test-env';

/** Proves the run talks to real servers, and prints what they are. */
describe('infrastructure under test', () => {
  const env = testEnv();

  it('Apache Kafka answers metadata requests', async () => {
    const admin = new Kafka({ clientId: 'versions', brokers: env.kafkaBrokers, sasl: env.kafkaSasl, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const cluster = await admin.describeCluster();
    await admin.disconnect();
    console.log(`Kafka: ${env.kafkaBrokers.join(',')} cluster ${cluster.clusterId}, ${cluster.brokers.length} broker(s)`);
    expect(cluster.brokers.length).toBeGreaterThan(0);
  });

  it('Apache Cassandra answers CQL', async () => {
    const client = new Client({ contactPoints: env.cassandraContactPoints, localDataCenter: env.cassandraDatacenter });
    await client.connect();
    const rs = await client.execute('SELECT release_version, cluster_name FROM system.local');
    await client.shutdown();
    const row = rs.first();
    console.log(`Cassandra: ${env.cassandraContactPoints.join(',')} release ${String(row.get('release_version'))}`);
    expect(String(row.get('release_version'))).toMatch(/^\d+\.\d+/);
  });

  it('the MongoDB wire-protocol server answers buildInfo', async () => {
    const client = await MongoClient.connect(env.mongoUrl, { serverSelectionTimeoutMS: 5000, runtimeAdapters: { os } });
    const info = await client.db('admin').command({ buildInfo: 1 });
    const hello = await client.db('admin').command({ hello: 1 });
    await client.close();
    console.log(`MongoDB: ${env.mongoUrl} version ${String(info['version'])} maxWireVersion ${String(hello['maxWireVersion'])}`);
    expect(hello['maxWireVersion']).toBeGreaterThanOrEqual(9);
  });
});
