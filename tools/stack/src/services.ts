import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ServicePrincipal } from '@mw/contracts';
import { kafkaPasswordVariable } from '@mw/infra';

/** The processes `npm start` runs from their built bundles, with the settings each needs. */
export interface StackService {
  /** Also its Kafka principal (ADR 0009). */
  readonly name: ServicePrincipal;
  /** Bundle produced by `nx build`, relative to the repository root. */
  readonly bundle: string;
  readonly port: number;
  readonly needs: readonly ('mongo' | 'cassandra')[];
  /** Nx build target that produces the bundle. */
  readonly build: string;
}

export const STACK_SERVICES: readonly StackService[] = [
  { name: 'catalog', bundle: 'dist/apps/catalog/main.js', port: 3001, needs: ['mongo', 'cassandra'], build: 'catalog:build' },
  { name: 'catalog-projector', bundle: 'dist/apps/catalog-projector/main.js', port: 3011, needs: ['mongo', 'cassandra'], build: 'catalog:build-projector' },
  { name: 'inventory', bundle: 'dist/apps/inventory/main.js', port: 3002, needs: ['mongo'], build: 'inventory:build' },
  { name: 'carts', bundle: 'dist/apps/carts/main.js', port: 3003, needs: ['cassandra'], build: 'carts:build' },
  { name: 'orders', bundle: 'dist/apps/orders/main.js', port: 3004, needs: ['mongo'], build: 'orders:build' },
];

/** Environment of one service from the infra connection variables. */
export function serviceEnv(s: StackService, infra: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {
    HTTP_PORT: String(s.port),
    KAFKA_BROKERS: infra['KAFKA_BROKERS'] ?? '',
    ...kafkaEnvAs(s.name, infra),
    NODE_ENV: 'development',
    OIDC_ISSUER: infra['OIDC_ISSUER'] ?? '',
    OIDC_AUDIENCE: infra['OIDC_AUDIENCE'] ?? '',
  };
  if (s.needs.includes('mongo')) env['MONGO_URL'] = infra['MONGO_URL'] ?? '';
  if (s.needs.includes('cassandra')) {
    env['CASSANDRA_CONTACT_POINTS'] = infra['CASSANDRA_CONTACT_POINTS'] ?? '';
    env['CASSANDRA_LOCAL_DATACENTER'] = infra['CASSANDRA_LOCAL_DATACENTER'] ?? 'datacenter1';
  }
  return env;
}

/** KAFKA_SASL_MECHANISM / KAFKA_USERNAME / KAFKA_PASSWORD of a service's own principal, from the infra variables (ADR 0009). */
export function kafkaEnvAs(
  principal: ServicePrincipal,
  infra: Readonly<Record<string, string>>,
): Record<string, string> {
  const mechanism = infra['KAFKA_SASL_MECHANISM'] ?? 'none';
  if (mechanism === 'none') return { KAFKA_SASL_MECHANISM: 'none' };
  const password = infra[kafkaPasswordVariable(principal)];
  if (!password)
    throw new Error(
      `${kafkaPasswordVariable(principal)} missing from the infrastructure's variables: ${principal} cannot authenticate to Kafka`,
    );
  return { KAFKA_SASL_MECHANISM: mechanism, KAFKA_USERNAME: principal, KAFKA_PASSWORD: password };
}

export function bundlePath(root: string, s: StackService): string {
  const p = join(root, s.bundle);
  if (!existsSync(p)) throw new Error(`${s.name}: bundle ${s.bundle} missing after the build (nx run ${s.build})`);
  return p;
}
