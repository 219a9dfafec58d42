/**
 * Programmatic entry point (e.g. jest globalSetup):
 *
 *   import { ensureInfra } from '../tools/infra/src';
 *   export default async () => { await ensureInfra(); };
 *
 * Brings the servers up if they are not running (local processes, containers or external,
 * depending on INFRA — see config.ts), and returns the connection variables
 * (KAFKA_BROKERS and Kafka's SASL credentials, CASSANDRA_CONTACT_POINTS, CASSANDRA_LOCAL_DATACENTER,
 * MONGO_URL, OIDC_ISSUER, OIDC_AUDIENCE, and PROMETHEUS_URL when asked for),
 * which are also copied into process.env so that test workers inherit them.
 */
import { loadConfig, type InfraConfig } from './config';
import { InfraError, formatError } from './errors';
import { checkExternal } from './external';
import { upAll } from './local';
import { CORE_SERVERS, SERVER_NAMES } from './registry';
import { OIDC_AUDIENCE } from './servers/keycloak';
import type { ServerName } from './types';

export { loadConfig } from './config';
export { readPidState, serverPaths, spawnDetached, stopProcess, tailFile } from './process';
export type { InfraConfig, InfraMode } from './config';
export { InfraError } from './errors';
export { CORE_SERVERS, SERVER_NAMES, defaultServers } from './registry';
export { KAFKA_ADMIN_PRINCIPAL, KAFKA_SASL_MECHANISM, kafkaCredentialEnv, kafkaDevPassword, kafkaPasswordVariable, kafkaSasl } from './servers/kafka-security';
export { KEYCLOAK_IMAGE, OIDC_AUDIENCE, OIDC_REALM, issuerFor, realmClientSecret, realmDemoUsers, type RealmUser } from './servers/keycloak';
export { PROMETHEUS_IMAGE, composePrometheusConfig, writeScrapeTargets, type ScrapeTarget } from './servers/prometheus';
export { ZIPKIN_IMAGE, ZIPKIN_VERSION, zipkinSpansEndpoint } from './servers/zipkin';
export type { ServerName } from './types';
// the cluster topology (ADR 0062), for the chaos suite's partitions profile
export { cassandraRing, clusterEnv, downCluster, nodePid, restartNode, upCluster } from './cluster/cluster';
export { loadClusterConfig, type ClusterConfig } from './cluster/config';
export { createNetwork, rejoin, setLink, split, splitFrom } from './cluster/netns';
export { CLUSTER_PORTS, clusterHosts, findHost, hostsOf, serviceHosts, type ClusterHost, type NetHost } from './cluster/topology';

export interface EnsureInfraOptions {
  /** Which servers (default: kafka, cassandra, mongodb, keycloak — Prometheus only when asked for). */
  readonly servers?: readonly ServerName[];
  /** Progress output (default: stderr). */
  readonly log?: (line: string) => void;
  /** Copy the connection variables into process.env (default true). */
  readonly exportToProcessEnv?: boolean;
  readonly config?: InfraConfig;
}

export async function ensureInfra(options: EnsureInfraOptions = {}): Promise<Record<string, string>> {
  const cfg = options.config ?? loadConfig();
  const names = options.servers ?? CORE_SERVERS;
  const write = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const logger = (name: string, message: string): void => write(`[infra:${name}] ${message}`);
  let env: Record<string, string>;
  switch (cfg.mode) {
    case 'external':
      env = await checkExternal(cfg, names);
      break;
    case 'containers': {
      const { upContainers } = await import('./containers');
      env = await upContainers(cfg, names, logger);
      break;
    }
    case 'local': {
      // INFRA_EXTERNAL: those servers come from the environment, the others run here
      const external = names.filter((n) => cfg.externalServers.includes(n));
      const localNames = names.filter((n) => !cfg.externalServers.includes(n));
      const { results, failures } = await upAll(cfg, localNames, logger);
      if (failures.length > 0) {
        const text = failures.map((f) => `${f.name}: ${formatError(f.error)}`).join('\n');
        throw new InfraError(`infrastructure did not start (INFRA=local):\n${text}`);
      }
      env = external.length > 0 ? await checkExternal(cfg, external) : {};
      for (const r of results) {
        env[r.envVar] = r.connection;
        Object.assign(env, r.extraEnv);
        write(`[infra] ${r.name}: ${r.version}`);
      }
      if (localNames.includes('cassandra')) env['CASSANDRA_LOCAL_DATACENTER'] = cfg.cassandraDatacenter;
      if (localNames.includes('keycloak')) env['OIDC_AUDIENCE'] = OIDC_AUDIENCE;
      break;
    }
  }
  if (options.exportToProcessEnv !== false) Object.assign(process.env, env);
  return env;
}

/** Stops the local servers of `config` that infra started (its pid files); other modes are left alone. */
export async function stopInfra(
  config: InfraConfig,
  names: readonly ServerName[] = SERVER_NAMES,
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<void> {
  if (config.mode !== 'local') return;
  const { downOne } = await import('./local');
  await Promise.all(
    names
      .filter((n) => !config.externalServers.includes(n))
      .map((name) => downOne(config, name, (n, m) => log(`[infra:${n}] ${m}`))),
  );
}
