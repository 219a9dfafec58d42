import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ServicePrincipal } from '@mw/contracts';
import { kafkaPasswordVariable, type ScrapeTarget, zipkinSpansEndpoint } from '@mw/infra';

/** The processes `npm start` runs from their built bundles, with the settings each needs. */
export interface StackService {
  /** Also its Kafka principal (ADR 0009). */
  readonly name: ServicePrincipal;
  /** Bundle produced by `nx build`, relative to the repository root. */
  readonly bundle: string;
  /** Default HTTP port (+ STACK_PORT_OFFSET). */
  readonly port: number;
  /** Variable the service reads its HTTP port from. */
  readonly portVariable: string;
  readonly needs: readonly ('mongo' | 'cassandra')[];
  /** Nx build target that produces the bundle. */
  readonly build: string;
  /** Databases, keyspaces and consumer groups the service uses by default (STACK_RESOURCE_SUFFIX appends to them). */
  readonly resources: Readonly<Record<string, string>>;
}

export const STACK_SERVICES: readonly StackService[] = [
  {
    name: 'catalog',
    bundle: 'dist/apps/catalog/main.js',
    port: 3001,
    portVariable: 'HTTP_PORT',
    needs: ['mongo', 'cassandra'],
    build: 'catalog:build',
    resources: { MONGO_DB: 'catalog', CASSANDRA_KEYSPACE: 'catalog_read', KAFKA_GROUP_ID: 'catalog' },
  },
  {
    name: 'catalog-projector',
    bundle: 'dist/apps/catalog-projector/main.js',
    port: 3011,
    portVariable: 'PROJECTOR_HTTP_PORT',
    needs: ['mongo', 'cassandra'],
    build: 'catalog:build-projector',
    resources: {
      MONGO_DB: 'catalog',
      CASSANDRA_KEYSPACE: 'catalog_read',
      PROJECTOR_GROUP_ID: 'catalog-projector',
    },
  },
  {
    name: 'inventory',
    bundle: 'dist/apps/inventory/main.js',
    port: 3002,
    portVariable: 'HTTP_PORT',
    needs: ['mongo'],
    build: 'inventory:build',
    resources: { MONGO_DB: 'inventory', KAFKA_GROUP_ID: 'inventory' },
  },
  {
    name: 'carts',
    bundle: 'dist/apps/carts/main.js',
    port: 3003,
    portVariable: 'HTTP_PORT',
    needs: ['cassandra'],
    build: 'carts:build',
    resources: { CASSANDRA_KEYSPACE: 'carts', KAFKA_GROUP_ID: 'carts' },
  },
  {
    name: 'orders',
    bundle: 'dist/apps/orders/main.js',
    port: 3004,
    portVariable: 'HTTP_PORT',
    needs: ['mongo'],
    build: 'orders:build',
    resources: { MONGO_DB: 'orders', KAFKA_GROUP_ID: 'orders' },
  },
];

/**
 * How `npm start` runs the services, from the environment (validated once):
 * - `STACK_PORT_OFFSET` (default 0): added to every service port (3001… → 3001+offset…);
 * - `STACK_SERVICES` (default all): comma list of the services to run;
 * - `STACK_RESOURCE_SUFFIX`: appended (`_<suffix>`) to every database, keyspace and consumer group —
 *   a second stack on the same servers (the stack's own tests) never touches the developer's data;
 * - `STACK_DEMO_DATA=0`: skip the demo data (loaded only for the default names with catalog, inventory and orders).
 * - `STACK_BUILD=0`: skip the Nx build (the bundles in dist/ are used as they are).
 */
export interface StackSettings {
  readonly portOffset: number;
  readonly services: readonly StackService[];
  readonly resourceSuffix: string | undefined;
  readonly demoData: boolean;
  /** `STACK_BUILD=0`: use the bundles already in dist/ (tests whose Nx target built them). */
  readonly build: boolean;
  /** The web app (apps/web) on WEB_APP_PORT + offset: with every API service, unless `STACK_WEB=0`. */
  readonly web?: boolean;
}

/** The web app: the built apps/web served by `vite preview`, its config (service URLs) from the environment. */
export const WEB_APP = { name: 'web', port: 4400, build: 'web:build', dist: 'dist/apps/web' } as const;

export function webPort(settings: Pick<StackSettings, 'portOffset'>): number {
  return WEB_APP.port + settings.portOffset;
}

/** The browser origins of the web app: what the services' CORS and Keycloak's web origins must allow. */
export function webOrigins(settings: Pick<StackSettings, 'portOffset'>): string[] {
  return [`http://127.0.0.1:${webPort(settings)}`, `http://localhost:${webPort(settings)}`];
}

export class StackConfigError extends Error {}

export function stackSettings(env: NodeJS.ProcessEnv = process.env): StackSettings {
  const offsetRaw = env['STACK_PORT_OFFSET']?.trim() || '0';
  const portOffset = /^\d+$/.test(offsetRaw) ? Number(offsetRaw) : Number.NaN;
  if (!Number.isInteger(portOffset) || portOffset > 60_000)
    throw new StackConfigError(
      `STACK_PORT_OFFSET must be a whole number from 0 to 60000, got "${offsetRaw}"`,
    );
  const namesRaw = env['STACK_SERVICES']?.trim();
  let services = STACK_SERVICES;
  if (namesRaw) {
    const names = namesRaw
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    const unknown = names.filter((n) => !STACK_SERVICES.some((s) => s.name === n));
    if (unknown.length > 0 || names.length === 0)
      throw new StackConfigError(
        `STACK_SERVICES must list some of ${STACK_SERVICES.map((s) => s.name).join(', ')}, got "${namesRaw}"`,
      );
    services = STACK_SERVICES.filter((s) => names.includes(s.name));
  }
  const suffix = env['STACK_RESOURCE_SUFFIX']?.trim() || undefined;
  if (suffix !== undefined && !/^[a-z0-9_]{1,30}$/.test(suffix))
    throw new StackConfigError(`STACK_RESOURCE_SUFFIX must be 1-30 of a-z, 0-9, _, got "${suffix}"`);
  const demoRaw = env['STACK_DEMO_DATA']?.trim() || '1';
  if (demoRaw !== '0' && demoRaw !== '1')
    throw new StackConfigError(`STACK_DEMO_DATA must be 0 or 1, got "${demoRaw}"`);
  const demoData =
    demoRaw === '1' &&
    suffix === undefined &&
    ['catalog', 'inventory', 'orders'].every((n) => services.some((s) => s.name === n));
  const buildRaw = env['STACK_BUILD']?.trim() || '1';
  if (buildRaw !== '0' && buildRaw !== '1')
    throw new StackConfigError(`STACK_BUILD must be 0 or 1, got "${buildRaw}"`);
  const webRaw = env['STACK_WEB']?.trim() || '1';
  if (webRaw !== '0' && webRaw !== '1')
    throw new StackConfigError(`STACK_WEB must be 0 or 1, got "${webRaw}"`);
  const web =
    webRaw === '1' &&
    ['catalog', 'inventory', 'carts', 'orders'].every((n) => services.some((s) => s.name === n));
  return { portOffset, services, resourceSuffix: suffix, demoData, build: buildRaw === '1', web };
}

export function servicePort(s: StackService, settings: Pick<StackSettings, 'portOffset'>): number {
  return s.port + settings.portOffset;
}

/** Environment marker every service of a stack carries: `MW_STACK_DIR=<its services dir>` (finds a process `ps` shows as ours). */
export const STACK_MARKER = 'MW_STACK_DIR';

/** Environment of one service from the infra connection variables. */
/** What Prometheus scrapes: each service of this stack at its port (job = the service). */
export function scrapeTargets(
  settings: Pick<StackSettings, 'portOffset' | 'services'>,
  host = '127.0.0.1',
): ScrapeTarget[] {
  return settings.services.map((s) => ({ job: s.name, address: `${host}:${servicePort(s, settings)}` }));
}

export function serviceEnv(
  s: StackService,
  infra: Readonly<Record<string, string>>,
  settings: Pick<StackSettings, 'portOffset' | 'resourceSuffix' | 'web'> = {
    portOffset: 0,
    resourceSuffix: undefined,
  },
  servicesDir?: string,
): Record<string, string> {
  const env: Record<string, string> = {
    [s.portVariable]: String(servicePort(s, settings)),
    KAFKA_BROKERS: infra['KAFKA_BROKERS'] ?? '',
    ...kafkaEnvAs(s.name, infra),
    NODE_ENV: 'development',
    OIDC_ISSUER: infra['OIDC_ISSUER'] ?? '',
    OIDC_AUDIENCE: infra['OIDC_AUDIENCE'] ?? '',
  };
  if (servicesDir !== undefined) env[STACK_MARKER] = servicesDir;
  // the browser calls the services from the web app's origin (docs/adr/0013)
  if (settings.web) env['CORS_ORIGINS'] = webOrigins(settings).join(',');
  // traces to the stack's Zipkin (ADR 0014); OTEL_SDK_DISABLED=true in the environment turns tracing off
  if (infra['ZIPKIN_URL']) {
    env['OTEL_TRACES_EXPORTER'] = 'zipkin';
    env['OTEL_EXPORTER_ZIPKIN_ENDPOINT'] = zipkinSpansEndpoint(infra['ZIPKIN_URL']);
  }
  if (s.needs.includes('mongo')) env['MONGO_URL'] = infra['MONGO_URL'] ?? '';
  // orders' operator endpoints (lag, dead letters, redrive) read Kafka as `ops` (ADR 0009, 0013)
  const opsPassword = infra[kafkaPasswordVariable('ops')];
  if (s.name === 'orders' && opsPassword) env['OPS_KAFKA_PASSWORD'] = opsPassword;
  if (s.needs.includes('cassandra')) {
    env['CASSANDRA_CONTACT_POINTS'] = infra['CASSANDRA_CONTACT_POINTS'] ?? '';
    env['CASSANDRA_LOCAL_DATACENTER'] = infra['CASSANDRA_LOCAL_DATACENTER'] ?? 'datacenter1';
  }
  if (settings.resourceSuffix !== undefined) {
    for (const [k, v] of Object.entries(s.resources)) env[k] = `${v}_${settings.resourceSuffix}`;
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
  if (!existsSync(p))
    throw new Error(`${s.name}: bundle ${s.bundle} missing after the build (nx run ${s.build})`);
  return p;
}

/** How the supervisor runs the web app: `vite preview` of the built bundle, pointed at this stack's services and issuer. */
export function webAppProcess(
  root: string,
  settings: Pick<StackSettings, 'portOffset' | 'services'>,
  infra: Readonly<Record<string, string>>,
  servicesDir: string,
): { name: string; command: string; args: string[]; env: Record<string, string>; cwd: string } {
  const url = (name: string): string => {
    const s = STACK_SERVICES.find((x) => x.name === name);
    if (!s) throw new Error(`no service ${name}`);
    return `http://127.0.0.1:${servicePort(s, settings)}`;
  };
  if (!existsSync(join(root, WEB_APP.dist, 'index.html')))
    throw new Error(`web: ${WEB_APP.dist} missing after the build (nx run ${WEB_APP.build})`);
  return {
    name: WEB_APP.name,
    command: process.execPath,
    args: [
      join(root, 'node_modules/vite/bin/vite.js'),
      'preview',
      '--config',
      'apps/web/vite.config.ts',
      '--port',
      String(webPort(settings)),
      '--strictPort',
      '--host',
      '127.0.0.1',
    ],
    env: {
      [STACK_MARKER]: servicesDir,
      VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true',
      WEB_API_CATALOG: url('catalog'),
      WEB_API_INVENTORY: url('inventory'),
      WEB_API_CARTS: url('carts'),
      WEB_API_ORDERS: url('orders'),
      OIDC_ISSUER: infra['OIDC_ISSUER'] ?? '',
    },
    cwd: root,
  };
}
