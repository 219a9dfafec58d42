import { randomBytes } from 'node:crypto';
import { recordTestName } from './test-resources';

export interface TestEnv {
  readonly kafkaBrokers: string[];
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
  const missing = ['KAFKA_BROKERS', 'MONGO_URL', 'CASSANDRA_CONTACT_POINTS', 'OIDC_ISSUER'].filter(
    (k) => !e[k],
  );
  if (missing.length > 0) {
    throw new Error(
      `integration test environment missing ${missing.join(', ')}: run through "npm test" or "npm run infra:up"`,
    );
  }
  return {
    kafkaBrokers: (e['KAFKA_BROKERS'] ?? '').split(','),
    mongoUrl: e['MONGO_URL'] ?? '',
    cassandraContactPoints: (e['CASSANDRA_CONTACT_POINTS'] ?? '').split(','),
    cassandraDatacenter: e['CASSANDRA_LOCAL_DATACENTER'] ?? 'datacenter1',
    oidcIssuer: (e['OIDC_ISSUER'] ?? '').replace(/\/+$/, ''),
    oidcAudience: e['OIDC_AUDIENCE'] || 'mobile-world-api',
  };
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
