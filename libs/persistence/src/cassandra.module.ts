import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Client, types } from 'cassandra-driver';
import { HealthRegistry } from '@mw/platform';

export const CASSANDRA = Symbol('CASSANDRA');

export interface CassandraOptions {
  readonly contactPoints: readonly string[];
  readonly localDataCenter: string;
  readonly keyspace: string;
  /** CQL replication map, e.g. {class: 'SimpleStrategy', replication_factor: 1} locally, NetworkTopologyStrategy in production. */
  readonly replication: Readonly<Record<string, string | number>>;
  /** CQL statements run once at startup after the keyspace exists (CREATE TABLE IF NOT EXISTS ...). */
  readonly schema: readonly string[];
}

@Injectable()
class CassandraLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(CASSANDRA) private readonly client: Client,
    private readonly health: HealthRegistry,
  ) {}
  onModuleInit(): void {
    this.health.register({ name: 'cassandra', check: async () => void (await this.client.execute('SELECT now() FROM system.local')) });
  }
  async onApplicationShutdown(): Promise<void> {
    await this.client.shutdown();
  }
}

/**
 * Every statement of the services (ADR 0010): LOCAL_QUORUM reads and writes, and the Paxos phase of
 * lightweight transactions (`IF NOT EXISTS`, `IF revision = ?`) at LOCAL_SERIAL — the same quorum as
 * SERIAL in one datacenter, and still a local one when a second datacenter is added (the driver's
 * default, SERIAL, would make every LWT wait for a cross-datacenter quorum).
 */
export const cassandraQueryOptions = {
  consistency: types.consistencies.localQuorum,
  serialConsistency: types.consistencies.localSerial,
  prepare: true,
} as const;

/** Creates the keyspace and tables if missing, then binds the client to the keyspace. */
export async function connectCassandra(opts: CassandraOptions): Promise<Client> {
  const bootstrap = new Client({ contactPoints: [...opts.contactPoints], localDataCenter: opts.localDataCenter });
  try {
    await bootstrap.connect();
    const replication = JSON.stringify(opts.replication).replace(/"/g, "'");
    await bootstrap.execute(`CREATE KEYSPACE IF NOT EXISTS ${opts.keyspace} WITH replication = ${replication}`);
  } catch (e) {
    throw new Error(`Cassandra unreachable at ${opts.contactPoints.join(',')}: ${(e as Error).message} (start it with: npm run infra:up)`);
  } finally {
    await bootstrap.shutdown().catch(() => undefined);
  }
  const client = new Client({
    contactPoints: [...opts.contactPoints],
    localDataCenter: opts.localDataCenter,
    keyspace: opts.keyspace,
    queryOptions: cassandraQueryOptions,
  });
  await client.connect();
  for (const cql of opts.schema) await client.execute(cql);
  return client;
}

@Global()
@Module({})
export class CassandraModule {
  static forRoot(opts: CassandraOptions): DynamicModule {
    return {
      module: CassandraModule,
      providers: [{ provide: CASSANDRA, useFactory: () => connectCassandra(opts) }, CassandraLifecycle],
      exports: [CASSANDRA],
    };
  }
}
