import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { ensureInfra, InfraConfig, loadConfig, readPidState, serverPaths, stopInfra } from '@mw/infra';
import { createMongoClient } from '@mw/persistence';
import { waitFor } from '@mw/testing';

/**
 * The chaos run's own servers: a Kafka broker, a Cassandra node and a 3-member MongoDB replica set
 * started by tools/infra under `.infra/chaos` on ports of their own, so killing them never touches
 * the servers `npm start` or other test suites use.
 */
/** The servers the chaos run owns and kills (Keycloak is the main install's: tokens are not a fault target). */
export const CHAOS_SERVERS = ['kafka', 'cassandra', 'mongodb'] as const;

export const CHAOS_INFRA_ENV: Readonly<Record<string, string>> = {
  INFRA: 'local',
  INFRA_DIR: '.infra/chaos',
  KAFKA_PORT: '29092',
  KAFKA_CONTROLLER_PORT: '29093',
  CASSANDRA_PORT: '29042',
  CASSANDRA_STORAGE_PORT: '27000',
  CASSANDRA_SSL_STORAGE_PORT: '27001',
  CASSANDRA_JMX_PORT: '27199',
  MONGO_PORT: '27317',
};

/** The servers of a chaos run, whichever topology: what the run and its SIGKILL faults need of them. */
export interface ChaosServers {
  /** Where their data lives (for the log). */
  readonly where: string;
  /** One line per server kind, as the report lists them. */
  readonly versions: string[];
  /** Starts them (idempotent); resolves with the connection variables. */
  up(): Promise<Record<string, string>>;
  down(): Promise<void>;
  /** SIGKILLs one server of that kind, starts it again after `downMs`; resolves with what it killed. */
  killAndRestart(server: 'kafka' | 'cassandra', downMs: number, node?: number): Promise<string>;
  /** SIGKILLs the primary mongod (its supervisor restarts it): resolves once another member is primary and it is back. */
  killMongoPrimary(): Promise<{ killed: string; elected: string }>;
}

export class ChaosInfra implements ChaosServers {
  readonly config: InfraConfig;
  private readonly env: NodeJS.ProcessEnv;
  connection: Record<string, string> = {};
  versions: string[] = [];

  constructor(root: string, private readonly log: (line: string) => void) {
    this.env = { ...process.env, ...CHAOS_INFRA_ENV, INFRA_ROOT: root };
    // The main install's mongod saves a second pip install of the same pinned wheel.
    const mainMongod = join(root, '.infra/mongodb/venv/lib');
    if (!this.env['MONGOD_BIN'] && existsSync(mainMongod)) {
      const bin = findMongod(join(root, '.infra/mongodb/venv'));
      if (bin) this.env['MONGOD_BIN'] = bin;
    }
    this.config = loadConfig(this.env);
  }

  async up(): Promise<Record<string, string>> {
    const saved = process.env['MONGOD_BIN'];
    if (this.env['MONGOD_BIN']) process.env['MONGOD_BIN'] = this.env['MONGOD_BIN'];
    try {
      this.connection = await ensureInfra({
        config: this.config,
        // the identity provider is the main install's Keycloak (not a fault target): OIDC_ISSUER stays as it is
        servers: [...CHAOS_SERVERS],
        exportToProcessEnv: false,
        log: (line) => {
          if (line.startsWith('[infra] ')) this.versions.push(line.slice(8));
          this.log(line);
        },
      });
    } finally {
      if (saved === undefined) delete process.env['MONGOD_BIN'];
      else process.env['MONGOD_BIN'] = saved;
    }
    return this.connection;
  }

  get where(): string {
    return this.config.infraDir;
  }

  async down(): Promise<void> {
    await stopInfra(this.config, [...CHAOS_SERVERS], this.log);
  }

  async killAndRestart(server: 'kafka' | 'cassandra', downMs: number): Promise<string> {
    const pid = this.kill(server);
    await new Promise((r) => setTimeout(r, downMs));
    await this.restart(server);
    return `pid ${pid}`;
  }

  pidOf(server: 'kafka' | 'cassandra'): number {
    const state = readPidState(serverPaths(this.config.infraDir, server), this.config.infraDir);
    if (state.kind !== 'alive') throw new Error(`${server} is not running (${state.kind})`);
    return state.pid;
  }

  /** SIGKILL a JVM server's whole process group (no shutdown hook runs). */
  kill(server: 'kafka' | 'cassandra'): number {
    const pid = this.pidOf(server);
    process.kill(-pid, 'SIGKILL');
    return pid;
  }

  /** Starts a killed server again through tools/infra (stale pid file, recovery, readiness). */
  async restart(server: 'kafka' | 'cassandra'): Promise<void> {
    await waitFor(async () => readPidState(serverPaths(this.config.infraDir, server), this.config.infraDir).kind !== 'alive', 30_000, `${server} gone`);
    await ensureInfra({ config: this.config, servers: [server], exportToProcessEnv: false, log: this.log });
  }

  killMongoPrimary(): Promise<{ killed: string; elected: string }> {
    return killMongoPrimary(this.connection['MONGO_URL'] ?? '');
  }
}

/**
 * SIGKILLs the primary mongod of the replica set at `url`; the replica-set supervisor starts it
 * again. Resolves when another member is primary and the killed one is back as a secondary.
 */
export async function killMongoPrimary(url: string): Promise<{ killed: string; elected: string }> {
  const client: MongoClient = createMongoClient(url, { serverSelectionTimeoutMS: 30_000 });
  try {
    const admin = client.db('admin');
    const hello = await admin.command({ hello: 1 });
    const status = await admin.command({ serverStatus: 1 });
    const killed = String(hello['me']);
    process.kill(Number(status['pid']), 'SIGKILL');
    const elected = await waitFor(async () => {
      const h = await admin.command({ hello: 1 });
      return h['isWritablePrimary'] === true && h['me'] !== killed ? String(h['me']) : undefined;
    }, 90_000, 'a new MongoDB primary');
    await waitFor(async () => {
      const set = await admin.command({ replSetGetStatus: 1 });
      return (set['members'] as { name: string; stateStr: string }[]).find((m) => m.name === killed)?.stateStr === 'SECONDARY';
    }, 120_000, `${killed} back as a secondary`);
    return { killed, elected };
  } finally {
    await client.close();
  }
}

function findMongod(venv: string): string | undefined {
  for (const py of ['python3.11', 'python3.12', 'python3.10', 'python3']) {
    const bin = join(venv, 'lib', py, 'site-packages', 'fiftyone', 'db', 'bin', 'mongod');
    if (existsSync(bin)) return bin;
  }
  return undefined;
}
