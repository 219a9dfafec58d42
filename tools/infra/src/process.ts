import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { basename, join } from 'node:path';
import { InfraError } from './errors';
import type { LaunchSpec } from './types';

/** Where a managed server keeps its process bookkeeping: `.infra/<name>/server.{log,pid,cmd}`. */
export interface ServerPaths {
  readonly dir: string;
  readonly logFile: string;
  readonly pidFile: string;
  /** JSON with the command line we launched (to tell our process from a recycled pid). */
  readonly cmdFile: string;
}

export function serverPaths(infraDir: string, name: string): ServerPaths {
  const dir = join(infraDir, name);
  return {
    dir,
    logFile: join(dir, 'server.log'),
    pidFile: join(dir, 'server.pid'),
    cmdFile: join(dir, 'server.cmd'),
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/**
 * True when /proc says the process is finished: a zombie with no thread left. A JVM whose main
 * thread has exited while others still shut down also shows state Z — it is still alive.
 * Undefined when /proc is not available.
 */
function procFinished(pid: number): boolean | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const state = /^State:\s+(\S)/m.exec(status)?.[1];
    const threads = Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? '1');
    return (state === 'Z' || state === 'X') && threads <= 1;
  } catch {
    return existsSync('/proc/self/status') ? true : undefined;
  }
}

/** True if the pid exists and is not a finished zombie. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: exists but belongs to someone else — alive, though certainly not ours.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return procFinished(pid) !== true;
}

/** True if any process of the process group `pgid` is still alive (zombies excluded on Linux). */
export function isGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  if (!existsSync('/proc/self/stat')) return true;
  // The group exists; make sure it is not only zombies waiting to be reaped.
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        // rest[0] = state, rest[1] = ppid, rest[2] = pgrp
        if (Number(rest[2]) === pgid && procFinished(Number(entry)) === false) return true;
      } catch {
        // process vanished while scanning
      }
    }
    return false;
  } catch {
    return true;
  }
}

function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return undefined;
  }
}

function processCwd(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

export type PidState =
  | { readonly kind: 'none' }
  | { readonly kind: 'alive'; readonly pid: number }
  | { readonly kind: 'stale'; readonly pid: number | undefined; readonly reason: string };

/**
 * Reads `server.pid` and decides whether it still designates the process we started:
 * the pid must be alive and (on Linux) its command line must mention our infra dir or the
 * command we launched — otherwise the pid was recycled by an unrelated process.
 */
export function readPidState(paths: ServerPaths, infraDir: string): PidState {
  if (!existsSync(paths.pidFile)) return { kind: 'none' };
  const text = readFileSync(paths.pidFile, 'utf8').trim();
  const pid = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(pid) || pid <= 1)
    return { kind: 'stale', pid: undefined, reason: `unreadable pid file (${JSON.stringify(text)})` };
  if (!isProcessAlive(pid)) return { kind: 'stale', pid, reason: `process ${pid} is gone` };
  const cmd = commandLine(pid);
  if (cmd !== undefined) {
    let launched: string | undefined;
    try {
      launched = (JSON.parse(readFileSync(paths.cmdFile, 'utf8')) as { command?: string }).command;
    } catch {
      launched = undefined;
    }
    const cwd = processCwd(pid) ?? '';
    const ours =
      cmd.includes(infraDir) ||
      cwd.startsWith(infraDir) ||
      (launched !== undefined && cmd.includes(basename(launched)));
    if (!ours)
      return {
        kind: 'stale',
        pid,
        reason: `pid ${pid} now belongs to another program (${cmd.slice(0, 60)})`,
      };
  }
  return { kind: 'alive', pid };
}

export function removePidFile(paths: ServerPaths): void {
  rmSync(paths.pidFile, { force: true });
}

/**
 * Starts `spec` detached in its own process group (pgid = pid), stdout+stderr appended to
 * `server.log`, and writes `server.pid`. Resolves with the pid once the process has spawned.
 */
export async function spawnDetached(spec: LaunchSpec, paths: ServerPaths): Promise<number> {
  mkdirSync(paths.dir, { recursive: true });
  const fd = openSync(paths.logFile, 'a');
  try {
    writeFileSync(
      fd,
      `\n===== ${new Date().toISOString()} starting: ${spec.command} ${spec.args.join(' ')}\n`,
    );
    const child = spawn(spec.command, [...spec.args], {
      cwd: spec.cwd ?? paths.dir,
      env: { ...process.env, ...spec.env },
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    const pid = await new Promise<number>((resolveSpawn, rejectSpawn) => {
      child.once('error', (err: NodeJS.ErrnoException) => {
        rejectSpawn(
          new InfraError(
            err.code === 'ENOENT'
              ? `cannot start ${spec.command}: not found on PATH`
              : `cannot start ${spec.command}: ${err.message}`,
          ),
        );
      });
      child.once('spawn', () => {
        if (child.pid === undefined) rejectSpawn(new InfraError(`cannot start ${spec.command}: no pid`));
        else resolveSpawn(child.pid);
      });
    });
    child.unref();
    writeFileSync(paths.pidFile, `${pid}\n`);
    writeFileSync(
      paths.cmdFile,
      JSON.stringify(
        {
          command: spec.command,
          args: spec.args,
          cwd: spec.cwd ?? paths.dir,
          startedAt: new Date().toISOString(),
        },
        null,
        2,
      ),
    );
    return pid;
  } finally {
    closeSync(fd);
  }
}

/** Gives init a moment to reap the exited process so that `ps` right after `down` is clean. */
async function waitReaped(pid: number, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && existsSync(`/proc/${pid}`)) await sleep(100);
}

export type StopResult = 'not-running' | 'stopped' | 'killed';

/**
 * Stops the process group we started: SIGTERM, then SIGKILL after `timeoutMs`.
 * Only touches the pid recorded in our pid file (and only if it is still ours).
 */
export async function stopProcess(
  paths: ServerPaths,
  infraDir: string,
  timeoutMs: number,
  log: (message: string) => void = () => undefined,
): Promise<StopResult> {
  const state = readPidState(paths, infraDir);
  if (state.kind !== 'alive') {
    if (state.kind === 'stale') log(`removing stale pid file (${state.reason})`);
    removePidFile(paths);
    return 'not-running';
  }
  const pgid = state.pid;
  const signal = (sig: NodeJS.Signals): void => {
    try {
      process.kill(-pgid, sig);
    } catch {
      try {
        process.kill(pgid, sig); // not a group leader (should not happen): signal the process itself
      } catch {
        // already gone
      }
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isGroupAlive(pgid) && !isProcessAlive(pgid)) {
      await waitReaped(pgid);
      removePidFile(paths);
      return 'stopped';
    }
    await sleep(250);
  }
  log(`still running after ${Math.round(timeoutMs / 1000)}s, sending SIGKILL to process group ${pgid}`);
  signal('SIGKILL');
  const killDeadline = Date.now() + 10_000;
  while (Date.now() < killDeadline && (isGroupAlive(pgid) || isProcessAlive(pgid))) await sleep(100);
  if (isGroupAlive(pgid) || isProcessAlive(pgid)) {
    throw new InfraError(
      `process group ${pgid} survived SIGKILL; check it with: ps -o pid,pgid,stat,args -g ${pgid}`,
    );
  }
  await waitReaped(pgid);
  removePidFile(paths);
  return 'killed';
}

/** True if something accepts TCP connections on host:port. */
export function isPortOpen(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolvePort) => {
    const socket = connect({ port, host });
    const finish = (open: boolean): void => {
      socket.removeAllListeners();
      socket.destroy();
      resolvePort(open);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

/** Polls until host:port accepts connections. `stillAlive` aborts early when the server died. */
export async function waitForPort(
  port: number,
  host: string,
  timeoutMs: number,
  stillAlive: () => boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await isPortOpen(port, host, 1000)) return;
    if (!stillAlive()) throw new InfraError(`process exited before ${host}:${port} opened`);
    await sleep(500);
  }
  throw new InfraError(`nothing listening on ${host}:${port} after ${Math.round(timeoutMs / 1000)}s`);
}

/** Last `lines` lines of a text file (reads at most the last 64 KiB). */
export function tailFile(file: string, lines = 20): string[] {
  try {
    const size = statSync(file).size;
    const fd = openSync(file, 'r');
    try {
      const length = Math.min(size, 64 * 1024);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      return buffer
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim().length > 0)
        .slice(-lines);
    } finally {
      closeSync(fd);
    }
  } catch {
    return [];
  }
}

/** Runs `attempt` until it resolves, the deadline passes or `signal` aborts; then rethrows the last error. */
export async function retryUntil<T>(
  attempt: () => Promise<T>,
  timeoutMs: number,
  options: {
    intervalMs?: number;
    onWait?: (elapsedMs: number, lastError: unknown) => void;
    /** Stops retrying (rethrowing the last error) once aborted. */
    signal?: AbortSignal;
  } = {},
): Promise<T> {
  const started = Date.now();
  const interval = options.intervalMs ?? 1000;
  let lastError: unknown = new Error('no attempt made');
  let lastReport = started;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      lastError = err;
    }
    const now = Date.now();
    if (now - started >= timeoutMs || options.signal?.aborted) throw lastError;
    if (options.onWait && now - lastReport >= 10_000) {
      lastReport = now;
      options.onWait(now - started, lastError);
    }
    await sleep(Math.min(interval, Math.max(0, timeoutMs - (now - started))));
  }
}

/**
 * Cross-process mutex on `file` (O_EXCL create, holder pid inside). Waits while another live
 * process holds it — e.g. two jest runs calling ensureInfra() at once — and takes over a lock
 * whose holder died. Returns the release function.
 */
export async function acquireLock(
  file: string,
  timeoutMs: number,
  onWait: (holder: number) => void = () => undefined,
): Promise<() => void> {
  const deadline = Date.now() + timeoutMs;
  let reported = false;
  for (;;) {
    try {
      const fd = openSync(file, 'wx');
      writeFileSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder = Number.NaN;
    try {
      holder = Number(readFileSync(file, 'utf8').trim());
    } catch {
      continue; // released between our attempts
    }
    if (!Number.isInteger(holder) || holder <= 0 || !isProcessAlive(holder)) {
      rmSync(file, { force: true }); // holder died: stale lock
      continue;
    }
    if (Date.now() > deadline) {
      throw new InfraError(
        `another infra process (pid ${holder}) is still starting this server; lock file ${file}`,
      );
    }
    if (!reported) {
      reported = true;
      onWait(holder);
    }
    await sleep(500);
  }
}
