import { Client } from 'cassandra-driver';
import { connectCassandra } from '@mw/persistence';
import { testEnv } from '@mw/testing';
import { readModelSchema } from '../projection/cassandra-schema';

/** A keyspace of its own with the read-model tables, on the test Cassandra (dropped by the caller or the run's teardown). */
export function connectReadModelKeyspace(keyspace: string): Promise<Client> {
  const env = testEnv();
  return connectCassandra({
    contactPoints: env.cassandraContactPoints,
    localDataCenter: env.cassandraDatacenter,
    keyspace,
    replication: { class: 'SimpleStrategy', replication_factor: 1 },
    schema: readModelSchema,
  });
}
