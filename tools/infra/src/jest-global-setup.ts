/**
 * Jest globalSetup for projects with integration tests: when the connection variables are not
 * already set (by `npm test`, CI or the user), start the infrastructure through the project's
 * own tooling (local JVM processes, containers or external — see tools/infra) and export them
 * to the test workers. Tests never skip because a server is missing: they fail.
 */
export default async function globalSetup(): Promise<void> {
  const e = process.env;
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
