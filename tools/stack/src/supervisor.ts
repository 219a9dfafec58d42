/**
 * The services' supervisor in local mode (like the mongod members' replset.sh): one detached
 * process started by `npm start` that runs every service as its child, each in its own process
 * group with its output appended to `.infra/services/<name>/server.log`.
 *  - a service that exits while the supervisor is not stopping is started again after a backoff
 *    (1 s, doubling up to 30 s; back to 1 s once it stayed up 60 s); each restart is a JSON log
 *    line and counts in the state file;
 *  - every child is recorded in the process registry (pid + start time), so `npm stop` finds it
 *    even if the supervisor itself was killed;
 *  - `.infra/services/supervisor.json` holds each service's pid, start, restarts and last exit
 *    (`npm run status` reads it);
 *  - SIGTERM/SIGINT: SIGTERM to every service group, SIGKILL after 15 s, then exit.
 *
 * Run as `node --import tsx tools/stack/src/supervisor.ts <spec.json>` (start.ts does).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { identify } from './proc';
import { ProcessRegistry } from './registry';

export interface SupervisedService {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly logFile: string;
}

export interface SupervisorSpec {
  readonly services: readonly SupervisedService[];
  readonly stateFile: string;
  readonly registryFile: string;
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number; readonly resetAfterMs: number };
  readonly stopTimeoutMs?: number;
}

export interface ServiceState {
  readonly name: string;
  readonly pid: number | null;
  readonly startTime: string | null;
  readonly startedAt: string | null;
  readonly restarts: number;
  readonly state: 'running' | 'restarting' | 'stopped';
  readonly lastExit: {
    readonly code: number | null;
    readonly signal: string | null;
    readonly at: string;
  } | null;
}

export interface SupervisorState {
  readonly pid: number;
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly services: readonly ServiceState[];
}

export type SupervisorEvent = Readonly<Record<string, string | number | null>> & { readonly event: string };

interface Slot {
  readonly spec: SupervisedService;
  child: ChildProcess | null;
  state: ServiceState;
  /** Consecutive quick exits (sets the backoff). */
  failures: number;
  timer: NodeJS.Timeout | null;
}

const DEFAULT_BACKOFF = { initialMs: 1000, maxMs: 30_000, resetAfterMs: 60_000 };

/** Delay before the n-th consecutive restart (n ≥ 1): initial × 2^(n−1), capped. */
export function backoffMs(n: number, b: { initialMs: number; maxMs: number } = DEFAULT_BACKOFF): number {
  return Math.min(b.maxMs, b.initialMs * 2 ** Math.max(0, n - 1));
}

export class Supervisor {
  private readonly slots: Slot[];
  private readonly registry: ProcessRegistry;
  private readonly backoff: { initialMs: number; maxMs: number; resetAfterMs: number };
  private stopping = false;
  private readonly startedAt = new Date().toISOString();

  constructor(
    private readonly spec: SupervisorSpec,
    private readonly log: (e: SupervisorEvent) => void,
  ) {
    this.registry = new ProcessRegistry(spec.registryFile);
    this.backoff = { ...DEFAULT_BACKOFF, ...spec.backoff };
    this.slots = spec.services.map((s) => ({
      spec: s,
      child: null,
      failures: 0,
      timer: null,
      state: {
        name: s.name,
        pid: null,
        startTime: null,
        startedAt: null,
        restarts: 0,
        state: 'stopped',
        lastExit: null,
      },
    }));
  }

  start(): void {
    for (const slot of this.slots) this.launch(slot);
  }

  snapshot(): SupervisorState {
    return {
      pid: process.pid,
      startedAt: this.startedAt,
      updatedAt: new Date().toISOString(),
      services: this.slots.map((s) => s.state),
    };
  }

  private writeState(): void {
    mkdirSync(dirname(this.spec.stateFile), { recursive: true });
    const tmp = `${this.spec.stateFile}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.snapshot(), null, 2));
    renameSync(tmp, this.spec.stateFile);
  }

  private launch(slot: Slot): void {
    slot.timer = null;
    if (this.stopping) return;
    const s = slot.spec;
    mkdirSync(dirname(s.logFile), { recursive: true });
    const fd = openSync(s.logFile, 'a');
    let child: ChildProcess;
    try {
      writeFileSync(
        fd,
        `\n===== ${new Date().toISOString()} supervisor pid ${process.pid} starting: ${s.command} ${s.args.join(' ')}\n`,
      );
      child = spawn(s.command, [...s.args], {
        cwd: s.cwd,
        env: { ...process.env, ...s.env },
        detached: true,
        stdio: ['ignore', fd, fd],
      });
    } finally {
      closeSync(fd);
    }
    slot.child = child;
    const startedMs = Date.now();
    child.once('error', (err) => {
      this.log({ event: 'spawn-failed', service: s.name, error: err.message });
    });
    child.once('spawn', () => {
      const pid = child.pid ?? null;
      const recorded = pid === null ? undefined : this.registry.record(s.name, pid);
      slot.state = {
        ...slot.state,
        pid,
        startTime: recorded?.startTime ?? identify(pid ?? -1)?.startTime ?? null,
        startedAt: new Date().toISOString(),
        state: 'running',
      };
      this.log({ event: 'started', service: s.name, pid, restarts: slot.state.restarts });
      this.writeState();
    });
    child.once('exit', (code, signal) => {
      slot.child = null;
      const lastExit = { code, signal, at: new Date().toISOString() };
      if (this.stopping) {
        slot.state = { ...slot.state, pid: null, startTime: null, state: 'stopped', lastExit };
        this.writeState();
        return;
      }
      slot.failures = Date.now() - startedMs >= this.backoff.resetAfterMs ? 1 : slot.failures + 1;
      const delayMs = backoffMs(slot.failures, this.backoff);
      slot.state = {
        ...slot.state,
        pid: null,
        startTime: null,
        state: 'restarting',
        restarts: slot.state.restarts + 1,
        lastExit,
      };
      this.log({
        event: 'restart',
        service: s.name,
        code,
        signal,
        restarts: slot.state.restarts,
        delayMs,
        uptimeMs: Date.now() - startedMs,
      });
      this.writeState();
      slot.timer = setTimeout(() => this.launch(slot), delayMs);
    });
  }

  /** Stops every service (SIGTERM to its group, SIGKILL after the timeout); no restarts from now on. */
  async stop(): Promise<void> {
    this.stopping = true;
    const timeoutMs = this.spec.stopTimeoutMs ?? 15_000;
    await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.timer) clearTimeout(slot.timer);
        slot.timer = null;
        const child = slot.child;
        if (!child || child.pid === undefined || child.exitCode !== null || child.signalCode !== null) {
          slot.state = { ...slot.state, state: 'stopped', pid: null, startTime: null };
          return;
        }
        const exited = new Promise<void>((done) => child.once('exit', () => done()));
        const signal = (sig: NodeJS.Signals): void => {
          try {
            process.kill(-(child.pid as number), sig);
          } catch {
            child.kill(sig);
          }
        };
        signal('SIGTERM');
        const timer = setTimeout(() => {
          this.log({ event: 'kill', service: slot.spec.name, pid: child.pid ?? null, afterMs: timeoutMs });
          signal('SIGKILL');
        }, timeoutMs);
        await exited;
        clearTimeout(timer);
        this.log({ event: 'stopped', service: slot.spec.name, pid: child.pid ?? null });
      }),
    );
    this.writeState();
  }
}

export function readSupervisorState(file: string): SupervisorState | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SupervisorState;
  } catch {
    return undefined;
  }
}

function main(specFile: string): void {
  const spec = JSON.parse(readFileSync(specFile, 'utf8')) as SupervisorSpec;
  const log = (e: SupervisorEvent): void => {
    process.stdout.write(
      `${JSON.stringify({ time: new Date().toISOString(), component: 'supervisor', ...e })}\n`,
    );
  };
  const supervisor = new Supervisor(spec, log);
  let exiting = false;
  const shutdown = (sig: string): void => {
    if (exiting) return;
    exiting = true;
    log({ event: 'stopping', signal: sig });
    supervisor.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log({ event: 'stop-failed', error: (err as Error).message });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGHUP', () => undefined); // a closed terminal is no reason to stop the stack
  log({ event: 'supervising', services: spec.services.map((s) => s.name).join(',') });
  supervisor.start();
}

if (require.main === module) {
  const specFile = process.argv[2];
  if (!specFile) {
    process.stderr.write('usage: supervisor.ts <spec.json>\n');
    process.exit(2);
  }
  main(specFile);
}
