import { INestApplication } from '@nestjs/common';
import { AddressInfo } from 'node:net';
import pino from 'pino';
import { EnvelopeOf } from '@mw/contracts';
import { loadConfig, runService } from '@mw/platform';
import { testEnv, uniqueName } from '@mw/testing';
import { AppModule } from '../app.module';
import { CatalogConfig, catalogConfigSchema } from '../config';
import { ProjectorConsumer } from '../projection/projector.consumer';
import { ProjectorService } from '../projection/projector.service';

export interface Stack {
  readonly config: Readonly<CatalogConfig>;
  readonly api: INestApplication;
  readonly projector: INestApplication;
  readonly url: string;
  readonly projectorUrl: string;
  /** Every envelope the projector applied, in order. */
  readonly applied: EnvelopeOf<'catalog.products.v1'>[];
  close(): Promise<void>;
}

/**
 * The catalog API and the projector as two Nest apps (the production entry points are
 * main.ts and projector.main.ts), on a unique MongoDB database, Cassandra keyspace and
 * consumer group. The projector group starts at the latest offset so a run does not replay
 * every earlier run's events; it is ready before the first write.
 */
export async function startStack(overrides: Record<string, string> = {}): Promise<Stack> {
  const env = testEnv();
  const suffix = uniqueName('t').toLowerCase();
  const config = loadConfig(catalogConfigSchema, {
    KAFKA_BROKERS: env.kafkaBrokers.join(','),
    MONGO_URL: env.mongoUrl,
    CASSANDRA_CONTACT_POINTS: env.cassandraContactPoints.join(','),
    CASSANDRA_LOCAL_DATACENTER: env.cassandraDatacenter,
    MONGO_DB: `catalog_${suffix}`,
    CASSANDRA_KEYSPACE: `catalog_read_${suffix}`.slice(0, 48),
    PROJECTOR_GROUP_ID: `catalog-projector-${suffix}`,
    KAFKA_GROUP_ID: `catalog-${suffix}`,
    KAFKA_CLIENT_ID: `catalog-test-${suffix}`,
    PROJECTOR_START_FROM: 'latest',
    CATALOG_READ_PREFERENCE: 'primary',
    LOG_LEVEL: 'warn',
    ...overrides,
  });
  const logger = pino({ level: 'warn' });
  const { ProjectorModule } = await import('../projection/projector.module');
  const projector = await runService({
    name: 'catalog-projector-test',
    description: 'test',
    rootModule: ProjectorModule.register(config, logger),
    logger,
    http: { port: 0, host: '127.0.0.1', bodyLimit: config.HTTP_BODY_LIMIT },
    kafka: undefined,
    shutdownTimeoutMs: 5000,
  });
  const applied: EnvelopeOf<'catalog.products.v1'>[] = [];
  const service = projector.get(ProjectorService);
  const apply = service.apply.bind(service);
  service.apply = async (e) => {
    await apply(e);
    applied.push(e);
  };
  await projector.get(ProjectorConsumer).ready;
  const api = await runService({
    name: 'catalog-test',
    description: 'test',
    rootModule: AppModule.register(config, logger),
    logger,
    http: { port: 0, host: '127.0.0.1', bodyLimit: config.HTTP_BODY_LIMIT },
    kafka: undefined,
    shutdownTimeoutMs: 5000,
  });
  const port = (app: INestApplication) => (app.getHttpServer().address() as AddressInfo).port;
  return {
    config,
    api,
    projector,
    url: `http://127.0.0.1:${port(api)}`,
    projectorUrl: `http://127.0.0.1:${port(projector)}`,
    applied,
    close: async () => {
      await api.close();
      await projector.close();
    },
  };
}

export interface Res<T = Record<string, unknown>> {
  readonly status: number;
  readonly body: T;
}

export async function http<T = Record<string, unknown>>(
  method: string,
  url: string,
  body?: unknown,
): Promise<Res<T>> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
}
