/**
 * The services half of `npm start` / `npm stop` / `npm run status`: one supervisor per checkout
 * (supervisor.ts) owns the service processes; the registry (registry.ts) remembers every process
 * ever started here. "Running" is decided from those processes (pid + start time), never from
 * readiness: a service alive but not ready is waited for, never started twice.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPidState, serverPaths, spawnDetached, stopProcess, tailFile } from '@mw/infra';
import { identify, isSameProcess, pidsWithEnv, portHolder, processUptimeSeconds } from './proc';
import { ProcessRegistry, stopRegistered, type RegisteredProcess } from './registry';
import {
  bundlePath,
  serviceEnv,
  servicePort,
  STACK_MARKER,
  STACK_SERVICES,
  type StackService,
  type StackSettings,
  webAppProcess,
  webPort,
} from './services';
import { readSupervisorState, type SupervisorSpec } from './supervisor';

export class StackError extends Error {}

export interface StackLayout {
  readonly root: string;
  readonly servicesDir: string;
  readonly registry: ProcessRegistry;
  readonly stateFile: string;
  readonly specFile: string;
}

export function stackLayout(root: string, infraDir: string): StackLayout {
  const servicesDir = join(infraDir, 'services');
  return {
    root,
    servicesDir,
    registry: new ProcessRegistry(join(servicesDir, 'processes.jsonl')),
    stateFile: join(servicesDir, 'supervisor.json'),
    specFile: join(servicesDir, 'supervisor.spec.json'),
  };
}

const SUPERVISOR = 'supervisor';

/** The live supervisor of this checkout (the newest registered one whose pid + start time still match). */
export function liveSupervisor(layout: StackLayout): RegisteredProcess | undefined {
  return layout.registry
    .alive()
    .filter((e) => e.name === SUPERVISOR)
    .pop();
}

export async function ready(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

/**
 * Every live process this checkout started that the supervisor does not own any more: registry
 * entries (besides the supervisor), processes carrying this stack's environment marker, and
 * services of an older `npm start` that kept only a pid file.
 */
export function strayProcesses(layout: StackLayout): { name: string; pid: number; startTime: string }[] {
  const found = new Map<number, { name: string; pid: number; startTime: string }>();
  for (const e of layout.registry.alive()) if (e.name !== SUPERVISOR) found.set(e.pid, e);
  for (const pid of pidsWithEnv(STACK_MARKER, layout.servicesDir)) {
    const id = identify(pid);
    if (id && !found.has(pid)) found.set(pid, { name: 'service (by its environment)', ...id });
  }
  for (const s of STACK_SERVICES) {
    const state = readPidState(serverPaths(layout.servicesDir, s.name), layout.servicesDir);
    const id = state.kind === 'alive' ? identify(state.pid) : undefined;
    if (id && !found.has(id.pid)) found.set(id.pid, { name: `${s.name} (pid file)`, ...id });
  }
  return [...found.values()];
}

/** A port held by anyone but a process of this stack: one line naming the port and the holder. */
export function assertPortFree(s: StackService, port: number): void {
  const holder = portHolder(port);
  if (holder)
    throw new StackError(
      `port ${port} (${s.name}) is in use by ${holder.description}, which npm start did not start for this checkout: stop it or set STACK_PORT_OFFSET`,
    );
}

export interface StartOptions {
  readonly layout: StackLayout;
  readonly settings: StackSettings;
  readonly infra: Readonly<Record<string, string>>;
  readonly log: (m: string) => void;
  readonly readyTimeoutMs?: number;
}

/** Starts the supervisor unless one is running; then waits until every service answers /health/ready. */
export async function startServices(o: StartOptions): Promise<{ supervisorPid: number; started: boolean }> {
  const { layout, settings, log } = o;
  let supervisor = liveSupervisor(layout);
  let started = false;
  if (supervisor) {
    log(
      `services already supervised by pid ${supervisor.pid} (since ${supervisor.startedAt}): starting nothing`,
    );
    describeServices(layout, settings, log);
  } else {
    for (const stray of strayProcesses(layout)) {
      const outcome = await stopRegistered(stray, 15_000);
      log(`${stray.name} pid ${stray.pid} was left running without its supervisor: ${outcome}`);
    }
    for (const s of STACK_SERVICES) {
      const paths = serverPaths(layout.servicesDir, s.name);
      if (existsSync(paths.pidFile))
        await stopProcess(paths, layout.servicesDir, 15_000).catch(() => undefined);
    }
    layout.registry.prune();
    for (const s of settings.services) assertPortFree(s, servicePort(s, settings));
    if (settings.web) {
      const holder = portHolder(webPort(settings));
      if (holder)
        throw new StackError(
          `port ${webPort(settings)} (web) is in use by ${holder.description}, which npm start did not start for this checkout: stop it, set STACK_PORT_OFFSET or STACK_WEB=0`,
        );
    }
    const web = settings.web ? webAppProcess(layout.root, settings, o.infra, layout.servicesDir) : undefined;
    const spec: SupervisorSpec = {
      services: [
        ...settings.services.map((s) => ({
          name: s.name,
          command: process.execPath,
          args: ['--enable-source-maps', bundlePath(layout.root, s)],
          env: serviceEnv(s, o.infra, settings, layout.servicesDir),
          cwd: layout.root,
          logFile: serverPaths(layout.servicesDir, s.name).logFile,
        })),
        ...(web ? [{ ...web, logFile: serverPaths(layout.servicesDir, web.name).logFile }] : []),
      ],
      stateFile: layout.stateFile,
      registryFile: layout.registry.file,
    };
    mkdirSync(layout.servicesDir, { recursive: true });
    writeFileSync(layout.specFile, JSON.stringify(spec, null, 2), { mode: 0o600 });
    const paths = serverPaths(layout.servicesDir, SUPERVISOR);
    const pid = await spawnDetached(
      {
        command: process.execPath,
        args: ['--import', 'tsx', join(layout.root, 'tools/stack/src/supervisor.ts'), layout.specFile],
        env: { TSX_TSCONFIG_PATH: join(layout.root, 'tsconfig.base.json') },
        cwd: layout.root,
      },
      paths,
    );
    const entry = layout.registry.record(SUPERVISOR, pid);
    if (!entry)
      throw new StackError(
        `the supervisor exited at once; last lines of ${paths.logFile}:\n${tailFile(paths.logFile, 20).join('\n')}`,
      );
    supervisor = entry;
    started = true;
    log(
      `supervisor started (pid ${pid}, log ${paths.logFile.replace(`${layout.root}/`, '')}): ${settings.services.map((s) => s.name).join(', ')}`,
    );
  }
  await waitAllReady(o, supervisor);
  return { supervisorPid: supervisor.pid, started };
}

function describeServices(layout: StackLayout, settings: StackSettings, log: (m: string) => void): void {
  const state = readSupervisorState(layout.stateFile);
  for (const s of settings.services) {
    const st = state?.services.find((x) => x.name === s.name);
    if (!st) log(`${s.name}: not supervised by the running supervisor (started with other STACK_SERVICES?)`);
    else if (
      st.pid !== null &&
      st.startTime !== null &&
      isSameProcess({ pid: st.pid, startTime: st.startTime })
    )
      log(`${s.name}: running (pid ${st.pid}, restarts ${st.restarts})`);
    else log(`${s.name}: ${st.state} (restarts ${st.restarts}) — the supervisor brings it back`);
  }
}

async function waitAllReady(o: StartOptions, supervisor: RegisteredProcess): Promise<void> {
  const { layout, settings, log } = o;
  const timeoutMs = o.readyTimeoutMs ?? 180_000;
  const deadline = Date.now() + timeoutMs;
  const pending = new Set(settings.services);
  let lastReport = Date.now();
  while (pending.size > 0) {
    for (const s of [...pending]) if (await ready(servicePort(s, settings))) pending.delete(s);
    if (pending.size === 0) break;
    if (!isSameProcess(supervisor)) {
      const log = serverPaths(layout.servicesDir, SUPERVISOR).logFile;
      throw new StackError(
        `the supervisor (pid ${supervisor.pid}) exited; last lines of ${log}:\n${tailFile(log, 20).join('\n')}`,
      );
    }
    if (Date.now() > deadline) {
      const lines = [...pending].map((s) => {
        const file = serverPaths(layout.servicesDir, s.name).logFile;
        return `${s.name} not ready on :${servicePort(s, settings)} after ${timeoutMs / 1000}s (the supervisor keeps it running; npm run status); last log lines:\n${tailFile(file, 15).join('\n')}`;
      });
      throw new StackError(lines.join('\n'));
    }
    if (Date.now() - lastReport >= 15_000) {
      lastReport = Date.now();
      const state = readSupervisorState(layout.stateFile);
      for (const s of pending) {
        const st = state?.services.find((x) => x.name === s.name);
        log(
          `${s.name}: ${st?.pid ? `pid ${st.pid} alive` : (st?.state ?? 'starting')}, not ready yet — waiting (restarts ${st?.restarts ?? 0})`,
        );
      }
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** `npm stop`'s services half: the supervisor (which stops its services), then anything this checkout started that is still alive. */
export async function stopServices(layout: StackLayout, log: (m: string) => void): Promise<string[]> {
  const stopped: string[] = [];
  const state = readSupervisorState(layout.stateFile);
  for (const sup of layout.registry.alive().filter((e) => e.name === SUPERVISOR)) {
    const children = (state?.services ?? []).filter(
      (s) => s.pid !== null && s.startTime !== null && isSameProcess({ pid: s.pid, startTime: s.startTime }),
    );
    const outcome = await stopRegistered(sup, 40_000);
    for (const c of children) {
      const gone = !isSameProcess({ pid: c.pid as number, startTime: c.startTime as string });
      stopped.push(`${c.name} pid ${c.pid}${gone ? '' : ' (still running)'}`);
    }
    stopped.push(`supervisor pid ${sup.pid} (${outcome})`);
  }
  for (const stray of strayProcesses(layout)) {
    const outcome = await stopRegistered(stray, 15_000);
    stopped.push(`${stray.name} pid ${stray.pid} (left running without its supervisor; ${outcome})`);
  }
  for (const s of STACK_SERVICES) {
    const paths = serverPaths(layout.servicesDir, s.name);
    if (existsSync(paths.pidFile))
      await stopProcess(paths, layout.servicesDir, 15_000).catch(() => undefined);
  }
  layout.registry.prune();
  for (const line of stopped) log(`stopped ${line}`);
  if (stopped.length === 0) log('no service was running');
  return stopped;
}

export interface StatusRow {
  readonly service: string;
  readonly port: string;
  readonly pid: string;
  readonly uptime: string;
  readonly restarts: string;
  readonly state: string;
}

function formatUptime(seconds: number | undefined): string {
  if (seconds === undefined) return '-';
  const s = Math.floor(seconds);
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}`;
}

/** One row per service: pid, uptime, restarts and readiness, from the supervisor's state and /proc. */
export async function serviceStatus(
  layout: StackLayout,
  settings: StackSettings,
): Promise<{ supervisor: string; rows: StatusRow[] }> {
  const sup = liveSupervisor(layout);
  const state = sup ? readSupervisorState(layout.stateFile) : undefined;
  const rows = await Promise.all(
    STACK_SERVICES.map(async (s): Promise<StatusRow> => {
      const port = servicePort(s, settings);
      const st = state?.services.find((x) => x.name === s.name);
      const alive =
        st?.pid != null && st.startTime != null && isSameProcess({ pid: st.pid, startTime: st.startTime });
      const isReady = await ready(port);
      let text: string;
      if (!sup) text = isReady ? 'stopped (port answered by a process npm start did not start)' : 'stopped';
      else if (!st) text = 'not supervised';
      else if (!alive)
        text = `${st.state}${st.lastExit ? ` (last exit ${st.lastExit.signal ?? st.lastExit.code} at ${st.lastExit.at})` : ''}`;
      else text = isReady ? 'running, ready' : 'running, not ready';
      return {
        service: s.name,
        port: String(port),
        pid: alive && st?.pid != null ? String(st.pid) : '-',
        uptime:
          alive && st?.startTime != null
            ? formatUptime(processUptimeSeconds({ startTime: st.startTime }))
            : '-',
        restarts: st ? String(st.restarts) : '-',
        state: text,
      };
    }),
  );
  return {
    supervisor: sup
      ? `supervisor pid ${sup.pid}, up ${formatUptime(processUptimeSeconds(sup))}`
      : 'supervisor not running',
    rows,
  };
}
