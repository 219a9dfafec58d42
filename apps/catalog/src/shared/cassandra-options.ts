import type { CassandraOptions } from '@mw/persistence';
import type { CatalogConfig } from '../config';
import { readModelSchema } from '../projection/cassandra-schema';

/** Keyspace catalog_read: SimpleStrategy locally, NetworkTopologyStrategy RF 3 in production (ADR 0033). */
export function cassandraOptions(config: Readonly<CatalogConfig>): CassandraOptions {
  return {
    contactPoints: config.CASSANDRA_CONTACT_POINTS,
    localDataCenter: config.CASSANDRA_LOCAL_DATACENTER,
    keyspace: config.CASSANDRA_KEYSPACE,
    replication:
      config.CASSANDRA_REPLICATION_FACTOR === 1
        ? { class: 'SimpleStrategy', replication_factor: 1 }
        : {
            class: 'NetworkTopologyStrategy',
            [config.CASSANDRA_LOCAL_DATACENTER]: config.CASSANDRA_REPLICATION_FACTOR,
          },
    schema: readModelSchema,
  };
}
