import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { topicNames } from '@mw/contracts';

/**
 * docker-compose.yml cannot run on a machine without a Docker engine, so its structure is
 * checked here: every app is built from its own Dockerfile, starts only after its dependencies
 * are healthy or initialised, has a readiness healthcheck and the settings its config requires.
 */
const root = join(__dirname, '../../..');
interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  environment?: Record<string, string | number>;
  entrypoint?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  command?: string[] | string;
  ports?: string[];
  volumes?: string[];
}
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;
const apps = ['catalog', 'catalog-projector', 'inventory', 'carts', 'orders'];

describe('docker-compose.yml', () => {
  it('runs MongoDB as a 3-member replica set, Kafka in KRaft mode and Cassandra 5', () => {
    for (const member of ['mongodb', 'mongodb-2', 'mongodb-3']) {
      expect(services[member]?.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
      // as tools/infra runs them: an abandoned transaction is reaped in seconds (ADR 0015 §7)
      expect(services[member]?.command).toEqual(expect.arrayContaining(['--setParameter', 'transactionLifetimeLimitSeconds=5']));
    }
    const init = JSON.stringify(services['mongodb']?.healthcheck);
    for (const host of ['mongodb:27017', 'mongodb-2:27017', 'mongodb-3:27017']) expect(init).toContain(host);
    for (const app of ['catalog', 'inventory', 'orders'])
      expect(services[app]?.environment?.['MONGO_URL']).toBe(
        'mongodb://mongodb:27017,mongodb-2:27017,mongodb-3:27017/?replicaSet=rs0',
      );
    expect(services['kafka']?.environment?.['KAFKA_PROCESS_ROLES']).toBe('broker,controller');
    expect(services['cassandra']?.image).toMatch(/^cassandra:5\.0/);
  });

  it('creates every contract topic and its DLQ, and the ACL table, before the services start', () => {
    expect(services['kafka-init']?.entrypoint).toEqual(['/bin/sh', '/mw/compose-init.sh']);
    const script = readFileSync(join(root, 'tools/infra/kafka/compose-init.sh'), 'utf8');
    for (const topic of topicNames) expect(script).toContain(topic);
    expect(script).toContain('.dlq');
    expect(script).toContain('. /mw/compose-acls.sh');
  });

  it('runs Kafka with SASL/SCRAM and every app as its own principal (ADR 0009)', () => {
    expect(services['kafka']?.entrypoint).toEqual(['/bin/bash', '/mw/compose-kafka.sh']);
    const broker = readFileSync(join(root, 'tools/infra/kafka/compose-kafka.sh'), 'utf8');
    expect(broker).toContain('authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer');
    expect(broker).toContain('allow.everyone.if.no.acl.found=false');
    for (const app of apps) {
      expect(services[app]?.environment?.['KAFKA_SASL_MECHANISM']).toBe('scram-sha-512');
      expect(services[app]?.environment?.['KAFKA_USERNAME']).toBe(app);
      expect(String(services[app]?.environment?.['KAFKA_PASSWORD'])).toMatch(/^\$\{KAFKA_PASSWORD_[A-Z_]+:-/);
      expect(broker).toContain(app === 'catalog' ? 'catalog catalog-projector' : app);
    }
  });

  it.each(apps)('%s is built from its own existing Dockerfile with a readiness healthcheck', (name) => {
    const s = services[name];
    expect(s?.build?.context).toBe('.');
    expect(existsSync(join(root, s!.build!.dockerfile))).toBe(true);
    expect(JSON.stringify(s?.healthcheck?.test)).toContain('/health/ready');
    expect(s?.environment?.['KAFKA_BROKERS']).toBe('kafka:9092');
  });

  it('every depends_on names a service and waits for health or completed initialisation', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const [dep, cond] of Object.entries(s.depends_on ?? {})) {
        expect({ name, dep, known: dep in services }).toEqual({ name, dep, known: true });
        expect(['service_healthy', 'service_completed_successfully']).toContain(cond.condition);
        if (cond.condition === 'service_healthy')
          expect({ dep, healthcheck: Boolean(services[dep]?.healthcheck) }).toEqual({
            dep,
            healthcheck: true,
          });
      }
    }
  });

  it('gives each service the connection settings its config requires', () => {
    const needs: Record<string, string[]> = {
      catalog: ['MONGO_URL', 'CASSANDRA_CONTACT_POINTS'],
      'catalog-projector': ['MONGO_URL', 'CASSANDRA_CONTACT_POINTS'],
      inventory: ['MONGO_URL'],
      carts: ['CASSANDRA_CONTACT_POINTS'],
      orders: ['MONGO_URL'],
    };
    for (const [name, vars] of Object.entries(needs))
      for (const v of vars)
        expect(`${name}:${v}:${v in (services[name]?.environment ?? {})}`).toBe(`${name}:${v}:true`);
  });

  it('runs Keycloak from the official image with the committed realm, healthy before any app starts', () => {
    const kc = services['keycloak'];
    expect(kc?.image).toBe('quay.io/keycloak/keycloak:26.0.7');
    expect(kc?.command).toEqual(['start-dev', '--import-realm']);
    expect(kc?.ports).toContain('8080:8080');
    const realm = './tools/infra/keycloak/mobile-world-realm.json';
    expect(existsSync(join(root, realm))).toBe(true);
    expect(kc?.volumes).toContain(`${realm}:/opt/keycloak/data/import/mobile-world-realm.json:ro`);
    expect(kc?.environment).toMatchObject({
      KC_HOSTNAME: 'http://localhost:8080',
      KC_HOSTNAME_BACKCHANNEL_DYNAMIC: 'true',
    });
    expect(JSON.stringify(kc?.healthcheck?.test)).toContain(
      '/realms/mobile-world/.well-known/openid-configuration',
    );
    for (const app of apps) {
      expect({ app, keycloak: services[app]?.depends_on?.['keycloak']?.condition }).toEqual({
        app,
        keycloak: 'service_healthy',
      });
      expect({ app, env: services[app]?.environment }).toMatchObject({
        app,
        env: {
          OIDC_ISSUER: 'http://localhost:8080/realms/mobile-world',
          OIDC_JWKS_URL: 'http://keycloak:8080/realms/mobile-world/protocol/openid-connect/certs',
          OIDC_AUDIENCE: 'mobile-world-api',
        },
      });
    }
  });

  it.each(['catalog', 'inventory', 'carts', 'orders'])(
    'the %s Dockerfile is multi-stage on Node 24 with production dependencies only',
    (app) => {
      const text = readFileSync(join(root, `apps/${app}/Dockerfile`), 'utf8');
      expect(text.match(/^FROM node:24/gm)?.length).toBeGreaterThanOrEqual(2);
      expect(text).toContain('npm ci --omit=dev');
      expect(text).toMatch(/nx build \S+/);
    },
  );

  it('serves the web app on 4400 from its own Dockerfile, pointed at the published services, healthy on /config.json (ADR 0013)', () => {
    const web = services['web'];
    expect(web?.build).toEqual({ context: '.', dockerfile: 'apps/web/Dockerfile' });
    expect(web?.ports).toContain('4400:4400');
    expect(web?.environment).toMatchObject({
      WEB_PORT: 4400,
      WEB_API_CATALOG: 'http://localhost:3001',
      WEB_API_INVENTORY: 'http://localhost:3002',
      WEB_API_CARTS: 'http://localhost:3003',
      WEB_API_ORDERS: 'http://localhost:3004',
      OIDC_ISSUER: 'http://localhost:8080/realms/mobile-world',
    });
    // each URL the browser is given is a port a service publishes
    for (const [name, port] of [
      ['catalog', 3001],
      ['inventory', 3002],
      ['carts', 3003],
      ['orders', 3004],
    ] as const) {
      expect(services[name]?.ports).toContain(`${port}:${port}`);
      expect({ name, web: web?.depends_on?.[name]?.condition }).toEqual({ name, web: 'service_healthy' });
    }
    expect(JSON.stringify(web?.healthcheck?.test)).toContain('/config.json');
    // the browser's calls from the app's origin pass CORS, and Keycloak's token endpoint lets the origin in
    for (const app of ['catalog', 'inventory', 'carts', 'orders'])
      expect(String(services[app]?.environment?.['CORS_ORIGINS']).split(',')).toEqual(
        expect.arrayContaining(['http://localhost:4400']),
      );
    const realm = JSON.parse(
      readFileSync(join(root, 'tools/infra/keycloak/mobile-world-realm.json'), 'utf8'),
    ) as {
      clients: { clientId: string; webOrigins?: string[] }[];
    };
    expect(realm.clients.find((c) => c.clientId === 'mobile-world-web')?.webOrigins).toContain(
      'http://localhost:4400',
    );
  });

  it('the web Dockerfile builds the Vite app and its server on Node 24 and runs with no dependencies installed', () => {
    const text = readFileSync(join(root, 'apps/web/Dockerfile'), 'utf8');
    expect(text.match(/^FROM node:24/gm)?.length).toBe(2);
    expect(text).toContain('nx build web');
    expect(text).toContain('apps/web/scripts/serve.ts');
    expect(existsSync(join(root, 'apps/web/scripts/serve.ts'))).toBe(true);
    const runtime = text.slice(text.lastIndexOf('FROM node:24'));
    expect(runtime).not.toMatch(/npm (ci|install)/);
    expect(runtime).toContain('USER node');
    expect(runtime).toMatch(/CMD \["node", "serve.js"\]/);
  });

  it('gives orders the ops principal for the operator’s Kafka endpoints', () => {
    expect(String(services['orders']?.environment?.['OPS_KAFKA_PASSWORD'])).toMatch(
      /^\$\{KAFKA_PASSWORD_OPS:-/,
    );
  });
});
