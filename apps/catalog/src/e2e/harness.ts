import { INestApplication } from '@nestjs/common';
import { EnvelopeOf } from '@mw/contracts';
import { EdgeSettings, loadConfig } from '@mw/platform';
import {
  accessToken,
  DemoUser,
  kafkaSaslAs,
  kafkaSaslEnv,
  serviceToken,
  startService,
  testEnv,
  uniqueName,
} from '@mw/testing';
import { api } from '../api';
import { AppModule } from '../app.module';
import { CatalogConfig, catalogConfigSchema } from '../config';
import { projectorApi } from '../projector-api';
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
 * The catalog API and the projector as two Nest apps started like main.ts and projector.main.ts
 * (the API edge verifying tokens of the project's Keycloak), on a unique MongoDB database,
 * Cassandra keyspace and consumer group. The projector group starts at the latest offset so a
 * run does not replay every earlier run's events; it is ready before the first write.
 */
export async function startStack(
  overrides: Record<string, string> = {},
  edge: Partial<EdgeSettings> = {},
): Promise<Stack> {
  const env = testEnv();
  const suffix = uniqueName('t').toLowerCase();
  const settings: Record<string, string> = {
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
  };
  // Each process as its own principal (ADR 0009): the API's relay writes the real
  // catalog.products.v1, which only `catalog` may; the projector reads it as `catalog-projector`
  // (its group catalog-projector-<run> is under that principal's prefix), a private copy as `test`.
  const config = loadConfig(catalogConfigSchema, { ...settings, ...kafkaSaslEnv(kafkaSaslAs('catalog')) });
  const projectorConfig = loadConfig(catalogConfigSchema, {
    ...settings,
    ...kafkaSaslEnv(
      config.PROJECTOR_TOPIC === 'catalog.products.v1' ? kafkaSaslAs('catalog-projector') : env.kafkaSasl,
    ),
  });
  const { ProjectorModule } = await import('../projection/projector.module');
  const projector = await startService({
    name: 'catalog-projector',
    api: projectorApi,
    rootModule: (logger) => ProjectorModule.register(projectorConfig, logger),
    brokers: config.KAFKA_BROKERS,
    edge,
  });
  const applied: EnvelopeOf<'catalog.products.v1'>[] = [];
  const service = projector.app.get(ProjectorService);
  const apply = service.apply.bind(service);
  service.apply = async (e) => {
    await apply(e);
    applied.push(e);
  };
  // the consumer applies a fetched batch at once; a chunk that failed goes through apply above
  const applyAll = service.applyAll.bind(service);
  service.applyAll = async (events) => {
    await applyAll(events);
    applied.push(...events);
  };
  await projector.app.get(ProjectorConsumer).ready;
  const catalog = await startService({
    name: 'catalog',
    api,
    rootModule: (logger) => AppModule.register(config, logger),
    brokers: config.KAFKA_BROKERS,
    edge,
  });
  return {
    config,
    api: catalog.app,
    projector: projector.app,
    url: catalog.url,
    projectorUrl: projector.url,
    applied,
    close: async () => {
      await catalog.app.close();
      await projector.app.close();
    },
  };
}

export interface Res<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

export interface CallOptions {
  /** Calls with a real access token of this demo user, or of the operations client ('service'). */
  readonly as?: DemoUser | 'service';
  readonly headers?: Readonly<Record<string, string>>;
}

/** Bearer header of a demo user (carol writes the catalogue) or of the operations client. */
export async function bearer(who: DemoUser | 'service'): Promise<Record<string, string>> {
  return { authorization: `Bearer ${who === 'service' ? await serviceToken() : await accessToken(who)}` };
}

export async function http<T = Record<string, unknown>>(
  method: string,
  url: string,
  body?: unknown,
  opts: CallOptions = {},
): Promise<Res<T>> {
  const res = await fetch(url, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(opts.as ? await bearer(opts.as) : {}),
      ...opts.headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as T };
}

/** carol holds catalog_manager: every catalogue write in the tests is hers. */
export const carol: CallOptions = { as: 'carol' };
