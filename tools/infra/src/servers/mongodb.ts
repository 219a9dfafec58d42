/**
 * MongoDB for local development, tests and CI (decision: docs/adr/0003-mongodb-server-choice.md).
 *
 * Two backends, chosen at every call from the environment:
 * - a real `mongod` when `MONGOD_BIN` is set or `mongod` is on PATH: started as a one-member
 *   replica set `rs0` (transactions and change streams need one), initiated in afterStart();
 * - otherwise SecantusDB (PyPI `secantusdb`, pinned below), a single-node MongoDB wire-protocol
 *   server on WiredTiger, installed into a Python venv under `.infra/mongodb/venv`. It advertises
 *   itself as the primary of a one-member replica set (`secantus`), so no initiation is needed.
 *
 * Both are reached with the same connection string: `mongodb://127.0.0.1:<port>/?directConnection=true`.
 * The suite tools/infra/conformance/mongo-conformance.spec.ts lists what the chosen server lacks.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { MongoClient, MongoServerError, type Document } from 'mongodb';
import { InfraError, displayPath } from '../errors';
import { tailFile } from '../process';
import type { InfraContext, LaunchSpec, LocalServer } from '../types';

/** SecantusDB release the project is pinned to (a pre-release: installed by exact pin). */
export const SECANTUS_VERSION = '0.7.0b3';
export const SECANTUS_REQUIREMENT = `secantusdb==${SECANTUS_VERSION}`;
/** Replica-set name used for a real mongod. */
export const MONGOD_REPLICA_SET = 'rs0';
export const DEFAULT_MONGO_PORT = 27217;
const HOST = '127.0.0.1';
const MIN_PYTHON: readonly [number, number] = [3, 10];

export type MongoBackend = { kind: 'mongod'; bin: string } | { kind: 'secantusdb' };

export interface MongoLayout {
  readonly dir: string;
  readonly venvDir: string;
  readonly venvPython: string;
  readonly secantusd: string;
  readonly configFile: string;
  /** SecantusDB (WiredTiger) data. */
  readonly dataDir: string;
  /** Real mongod data (kept apart: the two on-disk formats are not interchangeable). */
  readonly mongodDataDir: string;
  readonly installLog: string;
  readonly serverLog: string;
}

export function mongoLayout(infraDir: string): MongoLayout {
  const dir = join(infraDir, 'mongodb');
  const venvDir = join(dir, 'venv');
  return {
    dir,
    venvDir,
    venvPython: join(venvDir, 'bin', 'python'),
    secantusd: join(venvDir, 'bin', 'secantusd-py'),
    configFile: join(dir, 'secantusd.toml'),
    dataDir: join(dir, 'data'),
    mongodDataDir: join(dir, 'mongod-data'),
    installLog: join(dir, 'install.log'),
    serverLog: join(dir, 'server.log'),
  };
}

export function mongoPort(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env['MONGO_PORT']?.trim();
  if (!raw) return DEFAULT_MONGO_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new InfraError(`MONGO_PORT must be a TCP port (1-65535), got "${raw}"`);
  }
  return port;
}

export function mongoUrl(port: number, host = HOST): string {
  return `mongodb://${host}:${port}/?directConnection=true`;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `MONGOD_BIN` (must exist) → `mongod` on PATH → SecantusDB. */
export function resolveBackend(env: NodeJS.ProcessEnv = process.env): MongoBackend {
  const explicit = env['MONGOD_BIN']?.trim();
  if (explicit) {
    if (!isExecutable(explicit)) {
      throw new InfraError(
        `MONGOD_BIN=${explicit} is not an executable file: fix it or unset MONGOD_BIN to use SecantusDB`,
      );
    }
    return { kind: 'mongod', bin: explicit };
  }
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'mongod');
    if (isExecutable(candidate)) return { kind: 'mongod', bin: candidate };
  }
  return { kind: 'secantusdb' };
}

/** secantusd.toml: the knobs SecantusDB 0.7.0b3 actually honours (see ADR 0003). */
export function secantusConfig(o: { host: string; port: number; dataDir: string }): string {
  return [
    '# Written by tools/infra (servers/mongodb.ts) on every install; edits are overwritten.',
    '[server]',
    `host = ${JSON.stringify(o.host)}`,
    `port = ${o.port}`,
    `storage_path = ${JSON.stringify(o.dataDir)}`,
    'log_level = "INFO"',
    '',
    '[storage]',
    '# WiredTiger cache; the default (1G) is more than a dev/CI data set needs.',
    'cache_size = "256M"',
    '# TTL: secantusd-py 0.7.0b3 does not pass [storage] ttl_sweep_seconds to the engine, so',
    '# expired documents are removed by a sweep every 60 s (as mongod does by default).',
    '',
  ].join('\n');
}

export function mongodArgs(o: { port: number; dbPath: string; host?: string }): string[] {
  return [
    '--replSet',
    MONGOD_REPLICA_SET,
    '--bind_ip',
    o.host ?? HOST,
    '--port',
    String(o.port),
    '--dbpath',
    o.dbPath,
    '--wiredTigerCacheSizeGB',
    '0.25',
  ];
}

interface RunResult {
  readonly code: number | null;
  readonly output: string;
  readonly spawnError?: Error;
}

/** Runs a command to completion, capturing stdout+stderr together. */
function run(command: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((done) => {
    let output = '';
    let child;
    try {
      child = spawn(command, [...args], { stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
    } catch (err) {
      done({ code: null, output: '', spawnError: err as Error });
      return;
    }
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', (err) => done({ code: null, output, spawnError: err }));
    child.on('close', (code) => done({ code, output }));
  });
}

function lastLines(text: string, n = 8): string[] {
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim().length > 0)
    .slice(-n);
}

/** First python3 >= 3.10 among $PYTHON, python3.13 … python3.10, python3. */
async function findPython(env: NodeJS.ProcessEnv): Promise<string> {
  const candidates = [
    env['PYTHON'],
    'python3.13',
    'python3.12',
    'python3.11',
    'python3.10',
    'python3',
  ].filter((c): c is string => !!c);
  const seen: string[] = [];
  for (const candidate of candidates) {
    const res = await run(candidate, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], env);
    if (res.code !== 0) continue;
    const [major, minor] = res.output.trim().split('.').map(Number);
    seen.push(`${candidate} is ${res.output.trim()}`);
    if (
      major !== undefined &&
      minor !== undefined &&
      (major > MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor >= MIN_PYTHON[1]))
    ) {
      return candidate;
    }
  }
  throw new InfraError(
    `python3 >= ${MIN_PYTHON.join('.')} not found (needed for SecantusDB): ${seen.length ? seen.join(', ') : 'no python3 on PATH'}. ` +
      'Install one (e.g. apt-get install python3 python3-venv), point PYTHON at it, or set MONGOD_BIN to a real mongod.',
  );
}

async function installedSecantusVersion(layout: MongoLayout): Promise<string | undefined> {
  if (!existsSync(layout.venvPython) || !existsSync(layout.secantusd)) return undefined;
  const res = await run(layout.venvPython, [
    '-c',
    'import importlib.metadata as m; print(m.version("secantusdb"))',
  ]);
  return res.code === 0 ? res.output.trim() : undefined;
}

const NETWORK_HINTS =
  /(No matching distribution|Could not find a version|NewConnectionError|Max retries exceeded|Temporary failure in name resolution|Name or service not known|Network is unreachable|Connection refused|timed out|ProxyError|SSLError|HTTP error 40[34]|HTTP error 5\d\d)/i;

async function installSecantus(
  ctx: InfraContext,
  layout: MongoLayout,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const current = await installedSecantusVersion(layout);
  if (current === SECANTUS_VERSION) {
    ctx.log(`SecantusDB ${SECANTUS_VERSION} already installed in ${displayPath(ctx.root, layout.venvDir)}`);
    return;
  }
  if (!existsSync(layout.venvPython) || (await run(layout.venvPython, ['-c', 'pass'])).code !== 0) {
    const python = await findPython(env);
    ctx.log(`creating Python venv ${displayPath(ctx.root, layout.venvDir)} with ${python}`);
    const venv = await run(python, ['-m', 'venv', '--clear', layout.venvDir], env);
    if (venv.code !== 0) {
      writeFileSync(layout.installLog, venv.output);
      throw new InfraError(
        `could not create a Python venv with ${python} (on Debian/Ubuntu: apt-get install python3-venv)`,
        lastLines(venv.output, 5),
      );
    }
  }
  ctx.log(
    current
      ? `replacing SecantusDB ${current} with ${SECANTUS_VERSION} (pip)`
      : `installing SecantusDB ${SECANTUS_VERSION} from PyPI (pip, cached wheels reused)`,
  );
  const pip = await run(
    layout.venvPython,
    ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', SECANTUS_REQUIREMENT],
    { ...env, PIP_NO_INPUT: '1' },
  );
  writeFileSync(layout.installLog, pip.output);
  if (pip.code !== 0) {
    const details = [
      ...lastLines(pip.output),
      `full pip output: ${displayPath(ctx.root, layout.installLog)}`,
    ];
    if (NETWORK_HINTS.test(pip.output)) {
      const line =
        pip.output
          .split('\n')
          .find((l) => NETWORK_HINTS.test(l))
          ?.trim() ?? 'network error';
      throw new InfraError(
        `PyPI unreachable: pip could not download ${SECANTUS_REQUIREMENT} (${line})`,
        details,
      );
    }
    throw new InfraError(`pip install ${SECANTUS_REQUIREMENT} failed (exit ${pip.code})`, details);
  }
  const installed = await installedSecantusVersion(layout);
  if (installed !== SECANTUS_VERSION) {
    throw new InfraError(
      `pip reported success but the venv has secantusdb ${installed ?? '(none)'} instead of ${SECANTUS_VERSION}`,
      [`full pip output: ${displayPath(ctx.root, layout.installLog)}`],
    );
  }
}

function describeBackend(backend: MongoBackend): string {
  return backend.kind === 'mongod' ? `mongod (${backend.bin})` : `SecantusDB ${SECANTUS_VERSION}`;
}

async function withClient<T>(
  url: string,
  timeoutMs: number,
  fn: (client: MongoClient) => Promise<T>,
): Promise<T> {
  const client = new MongoClient(url, {
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    socketTimeoutMS: Math.max(timeoutMs, 30_000),
    appName: 'tools-infra',
  });
  try {
    await client.connect();
    return await fn(client);
  } finally {
    await client.close().catch(() => undefined);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

export interface MongoServerOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly port?: number;
  readonly host?: string;
}

export function createMongodbServer(options: MongoServerOptions = {}): LocalServer {
  const env = options.env ?? process.env;
  const port = options.port ?? mongoPort(env);
  const host = options.host ?? HOST;
  const url = mongoUrl(port, host);

  const logTail = (ctx: InfraContext): string[] => {
    const lines = tailFile(mongoLayout(ctx.infraDir).serverLog, 15);
    return lines.length ? ['last lines of the server log:', ...lines.map((l) => `  ${l}`)] : [];
  };

  return {
    name: 'mongodb',
    port,
    connection: { envVar: 'MONGO_URL', value: url },

    async install(ctx) {
      const layout = mongoLayout(ctx.infraDir);
      mkdirSync(layout.dir, { recursive: true });
      const backend = resolveBackend(env);
      if (backend.kind === 'mongod') {
        const res = await run(backend.bin, ['--version']);
        if (res.code !== 0) {
          throw new InfraError(
            `${backend.bin} --version failed (exit ${res.code ?? res.spawnError?.message})`,
            lastLines(res.output, 5),
          );
        }
        ctx.log(`using ${lastLines(res.output, 100)[0] ?? 'mongod'} from ${backend.bin}`);
        mkdirSync(layout.mongodDataDir, { recursive: true });
        return;
      }
      await installSecantus(ctx, layout, env);
      mkdirSync(layout.dataDir, { recursive: true });
      writeFileSync(layout.configFile, secantusConfig({ host, port, dataDir: layout.dataDir }));
    },

    async launch(ctx): Promise<LaunchSpec> {
      const layout = mongoLayout(ctx.infraDir);
      const backend = resolveBackend(env);
      if (backend.kind === 'mongod') {
        return {
          command: backend.bin,
          args: mongodArgs({ port, dbPath: layout.mongodDataDir, host }),
          cwd: layout.dir,
        };
      }
      if (!existsSync(layout.secantusd) || !existsSync(layout.configFile)) {
        throw new InfraError(
          `SecantusDB is not installed in ${displayPath(ctx.root, layout.venvDir)}: run the install step first`,
        );
      }
      return {
        command: layout.secantusd,
        args: ['--config', layout.configFile],
        env: { PYTHONUNBUFFERED: '1' },
        cwd: layout.dir,
      };
    },

    async waitReady(ctx, timeoutMs) {
      const started = Date.now();
      let lastError: unknown;
      let lastReport = started;
      while (Date.now() - started < timeoutMs) {
        const left = timeoutMs - (Date.now() - started);
        try {
          await withClient(url, Math.max(500, Math.min(2_000, left)), (client) =>
            client.db('admin').command({ hello: 1 }),
          );
          return;
        } catch (err) {
          lastError = err;
        }
        if (Date.now() - lastReport >= 10_000) {
          lastReport = Date.now();
          ctx.log(
            `waiting for ${describeBackend(resolveBackend(env))} on ${host}:${port} (${Math.round((Date.now() - started) / 1000)}s)`,
          );
        }
        await sleep(Math.min(500, Math.max(0, timeoutMs - (Date.now() - started))));
      }
      const layout = mongoLayout(ctx.infraDir);
      throw new InfraError(
        `MongoDB (${describeBackend(resolveBackend(env))}) did not answer "hello" on ${host}:${port} within ${Math.round(timeoutMs / 1000)}s` +
          ` (${lastError instanceof Error ? lastError.message.split('\n')[0] : String(lastError)}); ` +
          `check ${displayPath(ctx.root, layout.serverLog)}, whether another process holds port ${port} (MONGO_PORT changes it), ` +
          `or raise the start timeout`,
        logTail(ctx),
      );
    },

    async afterStart(ctx) {
      await withClient(url, 10_000, async (client) => {
        const admin = client.db('admin');
        const hello = await admin.command({ hello: 1 });
        if (hello['isWritablePrimary'] === true) return; // SecantusDB, or an already initiated mongod
        let status: Document | undefined;
        try {
          status = await admin.command({ replSetGetStatus: 1 });
        } catch (err) {
          // 94 NotYetInitialized: a mongod started with --replSet and never initiated.
          if (!(err instanceof MongoServerError && err.code === 94)) throw err;
        }
        if (!status) {
          ctx.log(`initiating replica set ${MONGOD_REPLICA_SET} (${host}:${port})`);
          await admin.command({
            replSetInitiate: { _id: MONGOD_REPLICA_SET, members: [{ _id: 0, host: `${host}:${port}` }] },
          });
        }
        const deadline = Date.now() + 60_000;
        for (;;) {
          const h = await admin.command({ hello: 1 });
          if (h['isWritablePrimary'] === true) return;
          if (Date.now() > deadline) {
            throw new InfraError(
              `replica set ${MONGOD_REPLICA_SET} on ${host}:${port} has no writable primary after 60s (state: ${JSON.stringify(status?.['members'] ?? h)})`,
              logTail(ctx),
            );
          }
          await sleep(500);
        }
      });
    },

    async version() {
      return withClient(url, 5_000, async (client) => {
        const admin = client.db('admin');
        const buildInfo = await admin.command({ buildInfo: 1 });
        const hello = await admin.command({ hello: 1 });
        const wire = `wire ${String(hello['maxWireVersion'])}`;
        const secantus = buildInfo['secantusVersion'];
        return typeof secantus === 'string'
          ? `SecantusDB ${secantus} (MongoDB ${String(buildInfo['version'])} compatible, ${wire})`
          : `MongoDB ${String(buildInfo['version'])} (${wire})`;
      });
    },
  };
}

/** The MongoDB server definition used by the infra CLI (port from MONGO_PORT, default 27217). */
export const mongodb: LocalServer = createMongodbServer();
