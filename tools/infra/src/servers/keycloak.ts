/**
 * Keycloak 26 (the identity provider, docs/adr/0008) from its Maven Central distribution
 * (org.keycloak:keycloak-quarkus-dist, unpacked by tools/infra/maven/keycloak/pom.xml into
 * .infra/keycloak/dist), run with `bin/kc.sh start-dev` on loopback.
 *
 * The database is `dev-mem`: every start is a fresh H2 in memory into which the committed realm
 * (tools/infra/keycloak/mobile-world-realm.json, copied to dist/data/import at each start) is
 * imported, so an edited realm file takes effect on the next start and nothing else survives a
 * restart — users, clients and roles are whatever the file says, with their fixed ids. The signing
 * keys are generated at start: a token issued before a restart no longer verifies.
 *
 * The issuer is pinned (`--hostname`) to http://<host>:<KEYCLOAK_PORT>, so tokens carry the same
 * `iss` whichever local name a client used to reach the token endpoint.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InfraConfig } from '../config';
import { InfraError, displayPath } from '../errors';
import { retryUntil, serverPaths, tailFile } from '../process';
import type { InfraContext, LaunchSpec, LocalServer } from '../types';
import { ensureJava, unpackMavenArchive } from './jvm';

export const KEYCLOAK_VERSION = '26.0.7';
/** The official image, for INFRA=containers and docker-compose.yml (same version as the Maven distribution). */
export const KEYCLOAK_IMAGE = `quay.io/keycloak/keycloak:${KEYCLOAK_VERSION}`;
export const OIDC_REALM = 'mobile-world';
/** The audience every access token for the APIs carries (the `mobile-world-api` client). */
export const OIDC_AUDIENCE = 'mobile-world-api';
export const REALM_FILE_NAME = 'mobile-world-realm.json';
/** Dev-only bootstrap administrator of the master realm (admin console at /admin). */
export const KEYCLOAK_ADMIN = { username: 'admin', password: 'admin' } as const;

export interface KeycloakLayout {
  readonly dir: string;
  readonly distDir: string;
  readonly script: string;
  readonly importDir: string;
  readonly versionFile: string;
}

export function keycloakLayout(infraDir: string): KeycloakLayout {
  const dir = join(infraDir, 'keycloak');
  const distDir = join(dir, 'dist');
  return {
    dir,
    distDir,
    script: join(distDir, 'bin', 'kc.sh'),
    importDir: join(distDir, 'data', 'import'),
    versionFile: join(distDir, 'version.txt'),
  };
}

/** The committed realm (import format). */
export function realmFile(root: string): string {
  return join(root, 'tools', 'infra', 'keycloak', REALM_FILE_NAME);
}

/** `http://host:port` → the realm's issuer URL. */
export function issuerFor(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/realms/${OIDC_REALM}`;
}

/** The OpenID Provider metadata URL of an issuer. */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

export interface RealmUser {
  readonly id: string;
  readonly username: string;
  /** The application roles the user's tokens carry: composites expanded, Keycloak's own roles left out. */
  readonly roles: readonly string[];
  /** The password the realm file sets, when it sets one. */
  readonly password?: string;
}

interface RealmFile {
  roles?: { realm?: { name: string; composites?: { realm?: string[] } }[] };
  users?: {
    id?: string;
    username?: string;
    realmRoles?: string[];
    serviceAccountClientId?: string;
    credentials?: { type?: string; value?: string }[];
  }[];
  clients?: { clientId?: string; secret?: string }[];
}

const readRealm = (root: string): RealmFile => JSON.parse(readFileSync(realmFile(root), 'utf8')) as RealmFile;

/** Keycloak's own realm roles, which say nothing about what a user may do here. */
const isKeycloakRole = (role: string): boolean =>
  role === 'offline_access' || role === 'uma_authorization' || role.startsWith('default-roles-');

/** The people of the committed realm (service-account users left out), in file order. */
export function realmDemoUsers(root: string): RealmUser[] {
  const realm = readRealm(root);
  const composites = new Map((realm.roles?.realm ?? []).map((r) => [r.name, r.composites?.realm ?? []]));
  const expand = (roles: readonly string[], seen = new Set<string>()): string[] =>
    roles.flatMap((role) => {
      if (seen.has(role)) return [];
      seen.add(role);
      return [role, ...expand(composites.get(role) ?? [], seen)];
    });
  return (realm.users ?? [])
    .filter((u) => !u.serviceAccountClientId)
    .map((u) => ({
      id: u.id ?? '',
      username: u.username ?? '',
      roles: expand(u.realmRoles ?? []).filter((r) => !isKeycloakRole(r)),
      password: u.credentials?.find((c) => c.type === 'password')?.value,
    }));
}

/** The secret the realm file gives a confidential client (a development secret). */
export function realmClientSecret(root: string, clientId: string): string | undefined {
  return readRealm(root).clients?.find((c) => c.clientId === clientId)?.secret;
}

export interface KeycloakArgsOptions {
  readonly host: string;
  readonly port: number;
  readonly managementPort: number;
}

/** Arguments of `kc.sh`: dev mode on loopback, in-memory database, realm imported at every start. */
export function keycloakArgs(o: KeycloakArgsOptions): string[] {
  return [
    'start-dev',
    '--db=dev-mem',
    // H2 drops an in-memory database when its last connection closes: once the pool retired its
    // idle connections (~15 min without logins) every table was gone and token requests answered
    // 500 "this database is empty". One connection kept open keeps the database for the process's life.
    '--db-pool-min-size=1',
    '--db-pool-initial-size=1',
    '--import-realm',
    `--http-host=${o.host}`,
    `--http-port=${o.port}`,
    // the management interface (health) moves with the others instead of taking 9000
    `--http-management-port=${o.managementPort}`,
    '--health-enabled=true',
    `--hostname=http://${o.host}:${o.port}`,
  ];
}

/** Environment of `kc.sh`: a modest fixed heap instead of 70 % of the machine, the dev admin. */
export function keycloakEnv(heap: string): Record<string, string> {
  return {
    JAVA_OPTS_KC_HEAP: `-Xms64m -Xmx${heap} -XX:MaxMetaspaceSize=256m`,
    KC_BOOTSTRAP_ADMIN_USERNAME: KEYCLOAK_ADMIN.username,
    KC_BOOTSTRAP_ADMIN_PASSWORD: KEYCLOAK_ADMIN.password,
  };
}

/** Version from Keycloak's start line: "Keycloak 26.0.7 on JVM (powered by Quarkus 3.15.1) started in 9.8s." */
export function versionFromKeycloakLog(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = /Keycloak (\d[^\s]*) on JVM/.exec(lines[i] ?? '');
    if (match?.[1]) return match[1];
  }
  return undefined;
}

export interface OpenIdConfiguration {
  readonly issuer: string;
  readonly token_endpoint: string;
  readonly jwks_uri: string;
}

/**
 * GET the issuer's discovery document; resolves when it answers 200 naming `issuer`, else rejects
 * with the reason (unreachable, status, wrong issuer).
 */
export async function fetchDiscovery(issuer: string, timeoutMs: number): Promise<OpenIdConfiguration> {
  const url = discoveryUrl(issuer);
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
  const doc = (await res.json()) as Partial<OpenIdConfiguration>;
  if (doc.issuer !== issuer) {
    throw new Error(`GET ${url} names issuer ${String(doc.issuer)}, expected ${issuer}`);
  }
  return doc as OpenIdConfiguration;
}

export function createKeycloakServer(cfg: InfraConfig): LocalServer {
  const host = cfg.host;
  const port = cfg.ports.keycloak;
  const issuer = issuerFor(`http://${host}:${port}`);
  const pomFile = join(cfg.root, 'tools', 'infra', 'maven', 'keycloak', 'pom.xml');
  const logFile = (ctx: InfraContext): string => serverPaths(ctx.infraDir, 'keycloak').logFile;

  return {
    name: 'keycloak',
    port,
    auxPorts: [cfg.ports.keycloakManagement],
    connection: { envVar: 'OIDC_ISSUER', value: issuer },

    async install(ctx) {
      ensureJava();
      const layout = keycloakLayout(ctx.infraDir);
      const realm = realmFile(cfg.root);
      if (!existsSync(realm)) throw new InfraError(`realm file ${displayPath(cfg.root, realm)} is missing`);
      await unpackMavenArchive(ctx, {
        name: 'keycloak',
        pomFile,
        execution: 'keycloak-dist',
        outputProperty: 'keycloak.dist.dir',
        outputDir: layout.distDir,
        expect: join('bin', 'kc.sh'),
      });
      mkdirSync(layout.importDir, { recursive: true });
      copyFileSync(realm, join(layout.importDir, REALM_FILE_NAME));
    },

    async launch(ctx): Promise<LaunchSpec> {
      const layout = keycloakLayout(ctx.infraDir);
      return {
        command: 'bash',
        args: [layout.script, ...keycloakArgs({ host, port, managementPort: cfg.ports.keycloakManagement })],
        env: keycloakEnv(cfg.keycloakHeap),
        cwd: layout.distDir,
      };
    },

    async waitReady(ctx, timeoutMs) {
      try {
        await retryUntil(() => fetchDiscovery(issuer, 5000), timeoutMs, {
          intervalMs: 1000,
          signal: ctx.signal,
          onWait: (elapsed) =>
            ctx.log(`waiting for realm ${OIDC_REALM} on ${host}:${port} (${Math.round(elapsed / 1000)}s)`),
        });
      } catch (err) {
        throw new InfraError(
          `keycloak not ready on ${host}:${port} after ${Math.round(timeoutMs / 1000)}s (${(err as Error).message}); last lines of ${displayPath(ctx.root, logFile(ctx))}:`,
          tailFile(logFile(ctx), 20),
        );
      }
    },

    async version(ctx) {
      await fetchDiscovery(issuer, 5000); // the answer must come from a live server
      const reported = versionFromKeycloakLog(tailFile(logFile(ctx), 400));
      if (reported) return `Keycloak ${reported}`;
      const file = keycloakLayout(ctx.infraDir).versionFile;
      return existsSync(file) ? readFileSync(file, 'utf8').trim() : 'Keycloak (unknown version)';
    },
  };
}
