import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { InfraConfig } from './config';
import { InfraError, errorMessage } from './errors';
import { createCassandraServer } from './servers/cassandra';
import { createKafkaServer } from './servers/kafka';
import type { LocalServer, ServerName } from './types';

export const SERVER_NAMES: readonly ServerName[] = ['kafka', 'cassandra', 'mongodb'];

export function isServerName(value: string): value is ServerName {
  return (SERVER_NAMES as readonly string[]).includes(value);
}

export function parseServerNames(args: readonly string[]): ServerName[] {
  if (args.length === 0) return [...SERVER_NAMES];
  const names: ServerName[] = [];
  for (const arg of args) {
    for (const part of arg
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean)) {
      const name = part === 'mongo' ? 'mongodb' : part;
      if (!isServerName(name))
        throw new InfraError(`unknown server "${part}": expected ${SERVER_NAMES.join(', ')}`);
      if (!names.includes(name)) names.push(name);
    }
  }
  return names;
}

function isLocalServer(value: unknown): value is LocalServer {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<LocalServer>;
  return v.name === 'mongodb' && typeof v.install === 'function' && typeof v.launch === 'function';
}

/**
 * The MongoDB definition lives in servers/mongodb.ts (written separately). It is loaded lazily
 * so that Kafka/Cassandra work even without it, and accepted as either an exported LocalServer
 * object or a factory `(cfg) => LocalServer`.
 */
async function loadMongo(cfg: InfraConfig): Promise<LocalServer> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import('./servers/mongodb')) as unknown as Record<string, unknown>;
  } catch (err) {
    const missing = !['ts', 'js'].some((ext) => existsSync(join(__dirname, 'servers', `mongodb.${ext}`)));
    throw new InfraError(
      missing
        ? 'MongoDB server definition missing: tools/infra/src/servers/mongodb.ts does not exist yet'
        : `MongoDB server definition failed to load (tools/infra/src/servers/mongodb.ts): ${errorMessage(err).split('\n')[0]}`,
    );
  }
  const values = Object.entries(mod);
  for (const [, value] of values) if (isLocalServer(value)) return value;
  for (const [key, value] of values) {
    if (typeof value === 'function' && /mongo/i.test(key) && /^(create|make|build|get)|server$/i.test(key)) {
      const made: unknown = (value as (c: InfraConfig) => unknown)(cfg);
      const server = made instanceof Promise ? ((await made) as unknown) : made;
      if (isLocalServer(server)) return server;
    }
  }
  throw new InfraError('tools/infra/src/servers/mongodb.ts exports no LocalServer named "mongodb"');
}

export async function loadServer(name: ServerName, cfg: InfraConfig): Promise<LocalServer> {
  switch (name) {
    case 'kafka':
      return createKafkaServer(cfg);
    case 'cassandra':
      return createCassandraServer(cfg);
    case 'mongodb':
      return loadMongo(cfg);
  }
}

/** Environment variable each server's connection string is exported as. */
export const CONNECTION_VARS: Readonly<Record<ServerName, string>> = {
  kafka: 'KAFKA_BROKERS',
  cassandra: 'CASSANDRA_CONTACT_POINTS',
  mongodb: 'MONGO_URL',
};
