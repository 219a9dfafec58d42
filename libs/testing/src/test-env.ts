import { randomBytes } from 'node:crypto';
import type { KafkaPrincipal } from '@mw/contracts';
import type { KafkaSasl } from '@mw/platform';
import { recordTestName } from './test-resources';

export interface TestEnv {
  readonly kafkaBrokers: string[];
  /**
   * The `test` principal (ADR 0009): private topics on the test prefixes, any group; never a
   * registry topic. Undefined only when KAFKA_SASL_MECHANISM=none (a broker without SASL).
   */
  readonly kafkaSasl: KafkaSasl | undefined;
  readonly mongoUrl: string;
  readonly cassandraContactPoints: string[];
  readonly cassandraDatacenter: string;
  /** `OIDC_ISSUER` of the project's Keycloak realm (tokens: ./oidc.ts). */
  readonly oidcIssuer: string;
  /** `OIDC_AUDIENCE`: the `aud` access tokens for the APIs carry. */
  readonly oidcAudience: string;
}

/** Connection settings exported by the jest globalSetup (or by the caller). Fails loudly if absent. */
export function testEnv(): TestEnv {
  const e = process.env;
  const sasl = e['KAFKA_SASL_MECHANISM'] !== 'none';
  const required = ['KAFKA_BROKERS', 'MONGO_URL', 'CASSANDRA_CONTACT_POINTS', 'OIDC_ISSUER', ...(sasl ? ['KAFKA_SASL_MECHANISM', 'KAFKA_USERNAME', 'KAFKA_PASSWORD'] : [])];
  const missing = required.filter((k) => !e[k]);
  if (missing.length > 0) {
    throw new Error(`integration test environment missing ${missing.join(', ')}: run through "npm test" or eval "$(npm run -s infra:env)"`);
  }
  return {
    kafkaBrokers: (e['KAFKA_BROKERS'] ?? '').split(','),
    kafkaSasl: sasl ? saslOf(e['KAFKA_USERNAME'] ?? '', e['KAFKA_PASSWORD'] ?? '') : undefined,
    mongoUrl: e['MONGO_URL'] ?? '',
    cassandraContactPoints: (e['CASSANDRA_CONTACT_POINTS'] ?? '').split(','),
    cassandraDatacenter: e['CASSANDRA_LOCAL_DATACENTER'] ?? 'datacenter1',
    oidcIssuer: (e['OIDC_ISSUER'] ?? '').replace(/\/+$/, ''),
    oidcAudience: e['OIDC_AUDIENCE'] || 'mobile-world-api',
  };
}

function saslOf(username: string, password: string): KafkaSasl {
  const mechanism = process.env['KAFKA_SASL_MECHANISM'];
  if (mechanism !== 'scram-sha-512' && mechanism !== 'scram-sha-256' && mechanism !== 'plain') {
    throw new Error(`KAFKA_SASL_MECHANISM must be scram-sha-512, scram-sha-256, plain or none, got "${mechanism ?? ''}"`);
  }
  return { mechanism, username, password };
}

/** `KAFKA_PASSWORD_CATALOG_PROJECTOR` for `catalog-projector` (tools/infra `infra:env`). */
export const kafkaPasswordVariable = (principal: KafkaPrincipal): string => `KAFKA_PASSWORD_${principal.toUpperCase().replace(/-/g, '_')}`;

/**
 * SASL settings of another principal than `test`: a service under test that works on the real
 * registry topics runs as itself (the catalog's e2e harness); the authorization spec connects as
 * each. The password comes from `KAFKA_PASSWORD_<PRINCIPAL>` (infra:env / ensureInfra).
 */
export function kafkaSaslAs(principal: KafkaPrincipal): KafkaSasl | undefined {
  if (process.env['KAFKA_SASL_MECHANISM'] === 'none') return undefined;
  const variable = kafkaPasswordVariable(principal);
  const password = process.env[variable];
  if (!password) throw new Error(`integration test environment missing ${variable}: run through "npm test" or eval "$(npm run -s infra:env)"`);
  return saslOf(principal, password);
}

/** KAFKA_SASL_MECHANISM / KAFKA_USERNAME / KAFKA_PASSWORD of a service config for `sasl`. */
export function kafkaSaslEnv(sasl: KafkaSasl | undefined): Record<string, string> {
  return sasl
    ? { KAFKA_SASL_MECHANISM: sasl.mechanism, KAFKA_USERNAME: sasl.username, KAFKA_PASSWORD: sasl.password }
    : { KAFKA_SASL_MECHANISM: 'none' };
}

/**
 * A name unique to this test run: topics, groups, databases and keyspaces never collide. Its token
 * (`_<ms base36>_<6 hex>`) marks everything named after it as test-made (./test-resources.ts): the
 * run's global teardown drops it, the `npm test` sweep drops it once it is an hour old.
 */
export function uniqueName(prefix: string): string {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  recordTestName(name);
  return name;
}

export async function waitFor<T>(
  probe: () => Promise<T | undefined | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`,
  );
}
