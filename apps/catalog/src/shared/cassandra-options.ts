import { cassandraReplication, type CassandraOptions } from '@mw/persistence';
import type { CatalogConfig } from '../config';
import { readModelSchema } from '../projection/cassandra-schema';

/** Keyspace catalog_read: SimpleStrategy locally, NetworkTopologyStrategy RF 3 in production (ADR 0033). */
export function cassandraOptions(config: Readonly<CatalogConfig>): CassandraOptions {
  return {
    contactPoints: config.CASSANDRA_CONTACT_POINTS,
    localDataCenter: config.CASSANDRA_LOCAL_DATACENTER,
    keyspace: config.CASSANDRA_KEYSPACE,
    replication: cassandraReplication(config.CASSANDRA_REPLICATION_FACTOR, config.CASSANDRA_LOCAL_DATACENTER),
    schema: readModelSchema,
  };
}
