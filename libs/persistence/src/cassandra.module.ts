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

/**
 * The keyspace's replication map: SimpleStrategy with one replica on a single local node,
 * NetworkTopologyStrategy with `replicationFactor` replicas in the local datacenter otherwise
 * (ADR 0010, ADR 0033) — so LOCAL_QUORUM means a quorum of that datacenter's replicas.
 */
export function cassandraReplication(replicationFactor: number, localDataCenter: string): Record<string, string | number> {
  return replicationFactor === 1
    ? { class: 'SimpleStrategy', replication_factor: 1 }
    : { class: 'NetworkTopologyStrategy', [localDataCenter]: replicationFactor };
}

/** Answers that mean "not now" (a coordinator still warming up after a restart, a node just cut off), not "wrong". */
export function isTransientCassandraError(e: unknown): boolean {
  const err = e as { name?: string; message?: string; code?: number } | undefined;
  if (!err) return false;
  if (err.name === 'NoHostAvailableError' || err.name === 'OperationTimedOutError') return true;
  // server errors: overloaded 0x1001, is_bootstrapping 0x1002, unavailable 0x1000, write/read timeout 0x1100/0x1200
  if (typeof err.code === 'number' && [0x1000, 0x1001, 0x1002, 0x1100, 0x1200].includes(err.code)) return true;
  return /did not reply before timeout|Not enough replicas|schema agreement/i.test(err.message ?? '');
}

/**
 * A schema element another client created a moment ago that this coordinator has not learnt yet:
 * two instances starting together on a cluster (one creates the type, the other's `CREATE TABLE`
 * using it reaches a node the new type has not reached — "Unknown type"). Settled by schema
 * agreement; retried a few times only, so a real typo still fails within seconds.
 */
export function isSchemaPropagationError(e: unknown): boolean {
  const err = e as { name?: string; message?: string; code?: number } | undefined;
  return err?.name === 'ResponseError' && err.code === 0x2200 && /^Unknown type |^Keyspace .* does not exist|^unconfigured table /i.test(err.message ?? '');
}
const SCHEMA_PROPAGATION_ATTEMPTS = 6;

/**
 * Runs a schema statement (idempotent: `IF NOT EXISTS`) until it succeeds or `deadlineMs` passes,
 * retrying only transient answers: one slow coordinator just after a node's restart must not end a
 * service's start (issue 32) — a wrong statement still fails at once. A schema element not yet
 * propagated (`isSchemaPropagationError`) waits for schema agreement and is retried a few times.
 */
export async function executeSchemaStatement(client: Client, cql: string, opts: SchemaRetryOptions = {}): Promise<void> {
  await retrySchemaStep(client, async () => void (await client.execute(cql)), opts);
}

/**
 * Connects a client bound to a keyspace another client created a moment ago, with the same retries:
 * on a cluster the new client's first node may not have learnt the keyspace yet ("Keyspace … does
 * not exist" from its `USE`). `Client.connect` resets its state on failure, so it can be called again.
 */
export async function connectBoundClient(client: Client, opts: SchemaRetryOptions = {}): Promise<void> {
  await retrySchemaStep(client, () => client.connect(), opts);
}

interface SchemaRetryOptions {
  readonly deadlineMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

async function retrySchemaStep(client: Client, step: () => Promise<void>, opts: SchemaRetryOptions): Promise<void> {
  const deadline = Date.now() + (opts.deadlineMs ?? 120_000);
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      await step();
      return;
    } catch (e) {
      const propagating = isSchemaPropagationError(e) && attempt < SCHEMA_PROPAGATION_ATTEMPTS;
      if (!(propagating || isTransientCassandraError(e)) || Date.now() >= deadline) throw e;
      await sleep(Math.min(5000, 250 * 2 ** Math.min(attempt, 5)));
      // the driver has it (metadata.checkSchemaAgreement, one look at every node's schema version); its typings do not
      if (propagating) await (client.metadata as unknown as { checkSchemaAgreement(): Promise<boolean> }).checkSchemaAgreement().catch(() => false);
    }
  }
}

/** Creates the keyspace and tables if missing, then binds the client to the keyspace. */
export async function connectCassandra(opts: CassandraOptions): Promise<Client> {
  const bootstrap = new Client({ contactPoints: [...opts.contactPoints], localDataCenter: opts.localDataCenter });
  try {
    await bootstrap.connect();
    const replication = JSON.stringify(opts.replication).replace(/"/g, "'");
    await executeSchemaStatement(bootstrap, `CREATE KEYSPACE IF NOT EXISTS ${opts.keyspace} WITH replication = ${replication}`);
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
  await connectBoundClient(client);
  for (const cql of opts.schema) await executeSchemaStatement(client, cql);
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
