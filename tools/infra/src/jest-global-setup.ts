import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Jest globalSetup for projects with integration tests: when the connection variables are not
 * already set (by `npm test`, CI or the user), start the infrastructure through the project's
 * own tooling (local JVM processes, containers or external — see tools/infra) and export them
 * to the test workers. Tests never skip because a server is missing: they fail.
 * It also opens this run's ledger of test-made names (MW_TEST_LEDGER, libs/testing
 * test-resources.ts), which the global teardown drops.
 */
export default async function globalSetup(): Promise<void> {
  const e = process.env;
  e['MW_TEST_LEDGER'] = join(tmpdir(), `mw-test-names-${process.pid}-${randomBytes(4).toString('hex')}.txt`);
  if (
    e['KAFKA_BROKERS'] &&
    e['KAFKA_SASL_MECHANISM'] &&
    e['MONGO_URL'] &&
    e['CASSANDRA_CONTACT_POINTS'] &&
    e['OIDC_ISSUER']
  )
    return;
  // Loaded lazily so unit-only runs never touch the infra tooling.
  const { ensureInfra } = await import('./index');
  await ensureInfra();
}
