/** `INFRA=external`: servers run elsewhere; only check that they are reachable. */
import { mongoHosts, parseHostPorts, type InfraConfig } from './config';
import { InfraError } from './errors';
import { isPortOpen } from './process';
import { CONNECTION_VARS } from './registry';
import { OIDC_AUDIENCE, fetchDiscovery } from './servers/keycloak';
import type { ServerName } from './types';

export function externalEnv(cfg: InfraConfig, names: readonly ServerName[]): Record<string, string> {
  const values: Record<ServerName, string | undefined> = {
    kafka: cfg.external.kafkaBrokers,
    cassandra: cfg.external.cassandraContactPoints,
    mongodb: cfg.external.mongoUrl,
    keycloak: cfg.external.oidcIssuer,
    prometheus: cfg.external.prometheusUrl,
    zipkin: cfg.external.zipkinUrl,
  };
  const env: Record<string, string> = {};
  const missing: string[] = [];
  for (const name of names) {
    const value = values[name];
    if (value === undefined) missing.push(CONNECTION_VARS[name]);
    else env[CONNECTION_VARS[name]] = value;
  }
  if (missing.length > 0)
    throw new InfraError(`INFRA=external needs ${missing.join(', ')} in the environment`);
  if (names.includes('cassandra'))
    env['CASSANDRA_LOCAL_DATACENTER'] = process.env['CASSANDRA_LOCAL_DATACENTER'] ?? cfg.cassandraDatacenter;
  if (names.includes('keycloak')) env['OIDC_AUDIENCE'] = cfg.external.oidcAudience ?? OIDC_AUDIENCE;
  if (names.includes('kafka')) {
    // the external broker's credentials (ADR 0009) pass through as given
    for (const [k, v] of Object.entries(process.env)) {
      if (v !== undefined && /^KAFKA_(SASL_MECHANISM|USERNAME|PASSWORD(_[A-Z_]+)?)$/.test(k)) env[k] = v;
    }
  }
  return env;
}

/** `http://host:port/path` → `host:port` (the scheme's default port when none is given). */
function urlHostPort(value: string, variable: string, example: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InfraError(`${variable} must be an http(s) URL such as ${example}, got "${value}"`);
  }
  return `${url.hostname}:${url.port || (url.protocol === 'http:' ? '80' : '443')}`;
}

const issuerHostPort = (issuer: string): string =>
  urlHostPort(issuer, 'OIDC_ISSUER', 'http://127.0.0.1:18080/realms/mobile-world');

export function endpointsOf(name: ServerName, value: string): [string, number][] {
  switch (name) {
    case 'kafka':
      return parseHostPorts(value, 9092, 'KAFKA_BROKERS');
    case 'cassandra':
      return parseHostPorts(value, 9042, 'CASSANDRA_CONTACT_POINTS');
    case 'mongodb':
      return mongoHosts(value);
    case 'keycloak':
      return parseHostPorts(issuerHostPort(value), 443, 'OIDC_ISSUER');
    case 'prometheus':
      return parseHostPorts(
        urlHostPort(value, 'PROMETHEUS_URL', 'http://127.0.0.1:9090'),
        443,
        'PROMETHEUS_URL',
      );
    case 'zipkin':
      return parseHostPorts(urlHostPort(value, 'ZIPKIN_URL', 'http://127.0.0.1:9411'), 443, 'ZIPKIN_URL');
  }
}

/** Resolves when every server has at least one reachable endpoint; otherwise one error listing the unreachable ones. */
export async function checkExternal(
  cfg: InfraConfig,
  names: readonly ServerName[],
): Promise<Record<string, string>> {
  const env = externalEnv(cfg, names);
  const problems: string[] = [];
  for (const name of names) {
    const value = env[CONNECTION_VARS[name]] ?? '';
    if (name === 'keycloak') {
      // an identity provider is reachable when it serves the issuer's discovery document
      const failure = await fetchDiscovery(value, 5000).then(
        () => undefined,
        (err: unknown) => (err as Error).message,
      );
      if (failure !== undefined) problems.push(`OIDC_ISSUER=${value} (${failure})`);
      continue;
    }
    const endpoints = endpointsOf(name, value);
    const open = await Promise.all(endpoints.map(([host, port]) => isPortOpen(port, host, 3000)));
    if (!open.some(Boolean)) problems.push(`${CONNECTION_VARS[name]}=${value}`);
  }
  if (problems.length > 0) {
    throw new InfraError(
      `INFRA=external but not reachable: ${problems.join(', ')} — start those servers or fix the variables`,
    );
  }
  return env;
}
