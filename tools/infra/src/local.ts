/** `INFRA=local`: processes under .infra, managed through pid files. */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { portVariable, type InfraConfig, type InfraPorts } from './config';
import { InfraError, displayPath, errorMessage } from './errors';
import {
  acquireLock,
  isPortOpen,
  isProcessAlive,
  readPidState,
  removePidFile,
  serverPaths,
  sleep,
  spawnDetached,
  stopProcess,
  tailFile,
  type PidState,
  type ServerPaths,
  type StopResult,
} from './process';
import { loadServer } from './registry';
import { OIDC_AUDIENCE } from './servers/keycloak';
import type { InfraContext, LocalServer, ServerName } from './types';

export type Logger = (name: ServerName | 'infra', message: string) => void;

export function contextFor(cfg: InfraConfig, name: ServerName, logger: Logger): InfraContext {
  return { root: cfg.root, infraDir: cfg.infraDir, log: (message) => logger(name, message) };
}

/** Who listens on a port, from `ss -ltnp` (best effort). */
export function portOwner(port: number): string | undefined {
  try {
    const out =
      spawnSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8', timeout: 3000 }).stdout ?? '';
    const match = /users:\(\("([^"]+)",pid=(\d+)/.exec(out);
    return match ? `${match[1]} pid ${match[2]}` : undefined;
  } catch {
    return undefined;
  }
}

function variableForPort(cfg: InfraConfig, port: number): string | undefined {
  for (const key of Object.keys(cfg.ports) as (keyof InfraPorts)[]) {
    if (cfg.ports[key] === port) return portVariable(key);
  }
  return undefined;
}

async function assertPortsFree(cfg: InfraConfig, server: LocalServer): Promise<void> {
  for (const port of [server.port, ...(server.auxPorts ?? [])]) {
    if (await isPortOpen(port, cfg.host, 1000)) {
      const owner = portOwner(port);
      const variable = variableForPort(cfg, port);
      throw new InfraError(
        `port ${port} is already in use by a process infra did not start${owner ? ` (${owner})` : ''}: stop it${
          variable ? ` or set ${variable} to a free port` : ''
        }`,
      );
    }
  }
}

/** waitReady, but fail fast (with the log tail) if the process dies meanwhile. */
async function waitReadyOrExit(
  server: LocalServer,
  ctx: InfraContext,
  pid: number,
  timeoutMs: number,
): Promise<void> {
  const paths = serverPaths(ctx.infraDir, server.name);
  const stopWaiting = new AbortController();
  let watching = true;
  const died = (async (): Promise<never> => {
    while (watching) {
      await sleep(1000);
      if (watching && !isProcessAlive(pid)) {
        throw new InfraError(
          `${server.name} exited during startup; last lines of ${displayPath(ctx.root, paths.logFile)}:`,
          tailFile(paths.logFile, 20),
        );
      }
    }
    return new Promise<never>(() => undefined);
  })();
  try {
    await Promise.race([server.waitReady({ ...ctx, signal: stopWaiting.signal }, timeoutMs), died]);
  } finally {
    watching = false;
    stopWaiting.abort(); // a readiness loop still polling a dead process would keep the CLI alive until its timeout
  }
}

export interface UpResult {
  readonly name: ServerName;
  readonly action: 'started' | 'already-running';
  readonly pid: number;
  readonly seconds: number;
  readonly version: string;
  readonly envVar: string;
  readonly connection: string;
  /** Other variables clients need (Kafka's SASL credentials). */
  readonly extraEnv: Readonly<Record<string, string>>;
}

export async function upOne(cfg: InfraConfig, name: ServerName, logger: Logger): Promise<UpResult> {
  const started = Date.now();
  const ctx = contextFor(cfg, name, logger);
  const server = await loadServer(name, cfg);
  const paths = serverPaths(cfg.infraDir, name);
  mkdirSync(paths.dir, { recursive: true });
  const seconds = (): number => (Date.now() - started) / 1000;
  const done = async (action: UpResult['action'], pid: number): Promise<UpResult> => ({
    name,
    action,
    pid,
    seconds: seconds(),
    version: await server
      .version(ctx)
      .catch((err: unknown) => `unknown (${errorMessage(err).split('\n')[0]})`),
    envVar: server.connection.envVar,
    connection: server.connection.value,
    extraEnv: server.connection.extraEnv ?? {},
  });

  const release = await acquireLock(join(paths.dir, 'up.lock'), cfg.startTimeoutMs + 120_000, (holder) =>
    ctx.log(`another infra process (pid ${holder}) is starting it: waiting`),
  );
  try {
    return await upLocked(cfg, server, ctx, paths, done);
  } finally {
    release();
  }
}

async function upLocked(
  cfg: InfraConfig,
  server: LocalServer,
  ctx: InfraContext,
  paths: ServerPaths,
  done: (action: UpResult['action'], pid: number) => Promise<UpResult>,
): Promise<UpResult> {
  const state = readPidState(paths, cfg.infraDir);
  if (state.kind === 'alive') {
    if (await isPortOpen(server.port, cfg.host, 1000)) {
      await server.waitReady(ctx, Math.min(cfg.startTimeoutMs, 60_000));
    } else {
      ctx.log(`pid ${state.pid} is running but port ${server.port} is not open yet: waiting for it`);
      await waitReadyOrExit(server, ctx, state.pid, cfg.startTimeoutMs);
    }
    if (server.reconcile) await server.reconcile(ctx);
    return done('already-running', state.pid);
  }
  if (state.kind === 'stale') {
    ctx.log(`removing stale pid file (${state.reason})`);
    removePidFile(paths);
  }
  await assertPortsFree(cfg, server);
  await server.install(ctx);
  const spec = await server.launch(ctx);
  const pid = await spawnDetached(spec, paths);
  ctx.log(
    `started pid ${pid}, log ${displayPath(cfg.root, paths.logFile)}; waiting until ready (timeout ${Math.round(cfg.startTimeoutMs / 1000)}s)`,
  );
  try {
    await waitReadyOrExit(server, ctx, pid, cfg.startTimeoutMs);
    if (server.afterStart) await server.afterStart(ctx);
    if (server.reconcile) await server.reconcile(ctx);
  } catch (err) {
    // leave nothing half-started behind
    await stopProcess(paths, cfg.infraDir, 15_000).catch(() => undefined);
    ctx.log(`stopped pid ${pid} after the failed start`);
    throw err;
  }
  return done('started', pid);
}

export interface StopOutcome {
  readonly name: ServerName;
  readonly result: StopResult;
  readonly pid: number | undefined;
  readonly seconds: number;
}

export async function downOne(cfg: InfraConfig, name: ServerName, logger: Logger): Promise<StopOutcome> {
  const started = Date.now();
  const paths = serverPaths(cfg.infraDir, name);
  const state = readPidState(paths, cfg.infraDir);
  const pid = state.kind === 'alive' ? state.pid : undefined;
  if (pid !== undefined) logger(name, `stopping pid ${pid} (SIGTERM to its process group)`);
  const result = await stopProcess(paths, cfg.infraDir, 45_000, (m) => logger(name, m));
  return { name, result, pid, seconds: (Date.now() - started) / 1000 };
}

export interface StatusRow {
  readonly server: ServerName;
  readonly mode: string;
  readonly port: string;
  readonly pid: string;
  readonly state: string;
  readonly version: string;
  readonly log: string;
}

function describePid(state: PidState): string {
  if (state.kind === 'alive') return String(state.pid);
  if (state.kind === 'stale') return `${state.pid ?? '?'} (stale)`;
  return '-';
}

export async function statusOne(cfg: InfraConfig, name: ServerName): Promise<StatusRow> {
  const paths = serverPaths(cfg.infraDir, name);
  const pidState = readPidState(paths, cfg.infraDir);
  const log = displayPath(cfg.root, paths.logFile);
  const server = await loadServer(name, cfg);
  const ctx = contextFor(cfg, name, () => undefined);
  const portOpen = await isPortOpen(server.port, cfg.host, 1000);
  let state: string;
  let version = '-';
  if (pidState.kind !== 'alive') {
    state = portOpen ? 'stopped (port taken by another process)' : 'stopped';
  } else if (!portOpen) {
    state = 'running, starting';
  } else {
    try {
      await server.waitReady(ctx, 3000);
      state = 'running, ready';
      version = await server.version(ctx);
    } catch {
      state = 'running, not ready';
    }
  }
  return {
    server: name,
    mode: 'local',
    port: String(server.port),
    pid: describePid(pidState),
    state,
    version,
    log,
  };
}

/** Connection env for local mode (does not start anything). */
export async function localEnv(
  cfg: InfraConfig,
  names: readonly ServerName[],
): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const name of names) {
    const server = await loadServer(name, cfg);
    env[server.connection.envVar] = server.connection.value;
    Object.assign(env, server.connection.extraEnv ?? {});
  }
  if (names.includes('cassandra')) env['CASSANDRA_LOCAL_DATACENTER'] = cfg.cassandraDatacenter;
  if (names.includes('keycloak')) env['OIDC_AUDIENCE'] = OIDC_AUDIENCE;
  return env;
}

/** Formats rows as an aligned text table. */
export function formatTable(
  rows: readonly Readonly<Record<string, string>>[],
  columns: readonly string[],
): string {
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [
    line(columns.map((c) => c.toUpperCase())),
    ...rows.map((r) => line(columns.map((c) => r[c] ?? ''))),
  ].join('\n');
}

export interface UpAllResult {
  readonly results: UpResult[];
  readonly failures: { readonly name: ServerName; readonly error: unknown }[];
}

/** Starts the servers in parallel (each one independently: one failure does not stop the others). */
export async function upAll(
  cfg: InfraConfig,
  names: readonly ServerName[],
  logger: Logger,
): Promise<UpAllResult> {
  const settled = await Promise.allSettled(names.map((name) => upOne(cfg, name, logger)));
  const results: UpResult[] = [];
  const failures: { name: ServerName; error: unknown }[] = [];
  settled.forEach((outcome, i) => {
    const name = names[i] as ServerName;
    if (outcome.status === 'fulfilled') results.push(outcome.value);
    else failures.push({ name, error: outcome.reason });
  });
  return { results, failures };
}
