import type { InfraConfig } from './config';
import { InfraError } from './errors';
import { createCassandraServer } from './servers/cassandra';
import { createKafkaServer } from './servers/kafka';
import { createKeycloakServer } from './servers/keycloak';
import { createMongodbServer } from './servers/mongodb';
import { createPrometheusServer } from './servers/prometheus';
import { createZipkinServer } from './servers/zipkin';
import type { LocalServer, ServerName } from './types';

/** Every server the CLI starts, stops and reports by default. */
export const SERVER_NAMES: readonly ServerName[] = [
  'kafka',
  'cassandra',
  'mongodb',
  'keycloak',
  'prometheus',
  'zipkin',
];
/** The servers the services and their tests need (ensureInfra's default); Prometheus only watches them. */
export const CORE_SERVERS: readonly ServerName[] = ['kafka', 'cassandra', 'mongodb', 'keycloak'];

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

/**
 * The servers a default run takes care of: all of them, except Prometheus under INFRA=external when
 * no PROMETHEUS_URL names one (watching is optional where the servers are someone else's).
 */
export function defaultServers(cfg: Pick<InfraConfig, 'mode' | 'external'>): ServerName[] {
  return SERVER_NAMES.filter(
    (n) =>
      (n !== 'prometheus' || cfg.mode !== 'external' || cfg.external.prometheusUrl) &&
      (n !== 'zipkin' || cfg.mode !== 'external' || cfg.external.zipkinUrl),
  );
}

export async function loadServer(name: ServerName, cfg: InfraConfig): Promise<LocalServer> {
  switch (name) {
    case 'kafka':
      return createKafkaServer(cfg);
    case 'cassandra':
      return createCassandraServer(cfg);
    case 'mongodb':
      return createMongodbServer(cfg);
    case 'keycloak':
      return createKeycloakServer(cfg);
    case 'prometheus':
      return createPrometheusServer(cfg);
    case 'zipkin':
      return createZipkinServer(cfg);
  }
}

/** Environment variable each server's connection string is exported as. */
export const CONNECTION_VARS: Readonly<Record<ServerName, string>> = {
  kafka: 'KAFKA_BROKERS',
  cassandra: 'CASSANDRA_CONTACT_POINTS',
  mongodb: 'MONGO_URL',
  keycloak: 'OIDC_ISSUER',
  prometheus: 'PROMETHEUS_URL',
  zipkin: 'ZIPKIN_URL',
};
