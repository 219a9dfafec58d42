/**
 * The supervisor, the process registry and the start/stop/status logic with small real child
 * processes (a few lines of node http server) instead of the whole stack (stack.int-spec.ts runs
 * the real npm start / npm stop).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSameProcess, identify, portHolder } from './proc';
import { ProcessRegistry, stopRegistered } from './registry';
import { STACK_MARKER, STACK_SERVICES, type StackSettings } from './services';
import {
  assertPortFree,
  liveSupervisor,
  ready,
  serviceStatus,
  stackLayout,
  startServices,
  stopServices,
  strayProcesses,
} from './stack';
import {
  backoffMs,
  readSupervisorState,
  Supervisor,
  type SupervisorEvent,
  type SupervisorSpec,
} from './supervisor';
import { sleep, until } from './test-support';

const ROOT = join(__dirname, '../../..');


function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

let dir: string;
let serverScript: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mw-supervisor-'));
  serverScript = join(dir, 'server.js');
  // a service in miniature: /health/ready answers 200 once listening
  writeFileSync(
    serverScript,
    `require('node:http').createServer((q, s) => { s.statusCode = q.url === '/health/ready' ? 200 : 404; s.end(); }).listen(Number(process.env.PORT), '127.0.0.1');\n`,
  );
});

afterEach(async () => {
  for (const c of children.splice(0)) if (c.pid && c.exitCode === null) c.kill('SIGKILL');
  const layout = stackLayout(ROOT, dir);
  for (const p of layout.registry.alive()) await stopRegistered(p, 2000);
  rmSync(dir, { recursive: true, force: true });
});

function specFor(port: number, over: Partial<SupervisorSpec> = {}, name = 'catalog'): SupervisorSpec {
  const layout = stackLayout(ROOT, dir);
  return {
    services: [
      {
        name,
        command: process.execPath,
        args: [serverScript],
        env: { PORT: String(port), [STACK_MARKER]: layout.servicesDir },
        cwd: dir,
        logFile: join(layout.servicesDir, name, 'server.log'),
      },
    ],
    stateFile: layout.stateFile,
    registryFile: layout.registry.file,
    backoff: { initialMs: 200, maxMs: 2000, resetAfterMs: 60_000 },
    stopTimeoutMs: 3000,
    ...over,
  };
}

describe('supervisor', () => {
  it('starts a SIGKILLed service again: back and ready within seconds, counted once, both processes registered', async () => {
    const port = await freePort();
    const events: SupervisorEvent[] = [];
    const spec = specFor(port);
    const sup = new Supervisor(spec, (e) => events.push(e));
    sup.start();
    try {
      await until(() => ready(port), 10_000, 'first start ready');
      const first = await until(
        () => readSupervisorState(spec.stateFile)?.services[0]?.pid ?? undefined,
        5000,
        'pid in state',
      );
      process.kill(first, 'SIGKILL');
      const t0 = Date.now();
      const second = await until(
        () => {
          const pid = readSupervisorState(spec.stateFile)?.services[0]?.pid;
          return pid && pid !== first ? pid : undefined;
        },
        10_000,
        'restarted pid',
      );
      await until(() => ready(port), 10_000, 'ready again');
      expect(Date.now() - t0).toBeLessThan(10_000);
      await sleep(1000); // nothing else happens: one exit, one restart
      const state = readSupervisorState(spec.stateFile)?.services[0];
      expect(state).toMatchObject({
        name: 'catalog',
        pid: second,
        restarts: 1,
        state: 'running',
        lastExit: { code: null, signal: 'SIGKILL' },
      });
      expect(events.filter((e) => e.event === 'restart')).toEqual([
        expect.objectContaining({ service: 'catalog', signal: 'SIGKILL', restarts: 1, delayMs: 200 }),
      ]);
      const registered = new ProcessRegistry(spec.registryFile).entries().filter((e) => e.name === 'catalog');
      expect(registered.map((e) => e.pid)).toEqual([first, second]);
      expect(new ProcessRegistry(spec.registryFile).alive().map((e) => e.pid)).toEqual([second]);
    } finally {
      await sup.stop();
    }
    const after = readSupervisorState(spec.stateFile)?.services[0];
    expect(after).toMatchObject({ state: 'stopped', pid: null, restarts: 1 });
    expect(await ready(port)).toBe(false);
    expect(new ProcessRegistry(spec.registryFile).alive()).toEqual([]);
  });

  it('backs off a crash loop: delays double up to the cap', async () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffMs(n))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000,
    ]);
    const events: SupervisorEvent[] = [];
    const spec: SupervisorSpec = {
      ...specFor(0),
      services: [
        {
          name: 'carts',
          command: process.execPath,
          args: ['-e', 'process.exit(3)'],
          env: {},
          cwd: dir,
          logFile: join(dir, 'carts.log'),
        },
      ],
      backoff: { initialMs: 100, maxMs: 400, resetAfterMs: 60_000 },
    };
    const sup = new Supervisor(spec, (e) => events.push(e));
    sup.start();
    await until(() => events.filter((e) => e.event === 'restart').length >= 5, 15_000, 'five restarts');
    await sup.stop();
    const restarts = events.filter((e) => e.event === 'restart');
    expect(restarts.slice(0, 5).map((e) => e['delayMs'])).toEqual([100, 200, 400, 400, 400]);
    expect(restarts.slice(0, 5).map((e) => e['code'])).toEqual([3, 3, 3, 3, 3]);
  });
});

describe('process registry', () => {
  it('signals only the very process it recorded: a pid whose start time changed is left alone', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      detached: true,
      stdio: 'ignore',
    });
    children.push(child);
    await until(() => child.pid !== undefined && identify(child.pid), 5000, 'child up');
    const registry = new ProcessRegistry(join(dir, 'processes.jsonl'));
    const entry = registry.record('catalog', child.pid as number);
    expect(entry).toBeDefined();
    const recycled = { ...entry!, startTime: String(Number(entry!.startTime) - 1) };
    expect(isSameProcess(recycled)).toBe(false);
    expect(await stopRegistered(recycled, 1000)).toBe('gone');
    expect(isSameProcess(entry!)).toBe(true);
    expect(await stopRegistered(entry!, 5000)).toBe('stopped');
    expect(isSameProcess(entry!)).toBe(false);
    registry.prune();
    expect(registry.entries()).toEqual([]);
  });
});

describe('ports', () => {
  it('names the port and the process holding it in one line', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [serverScript], {
      env: { ...process.env, PORT: String(port) },
      stdio: 'ignore',
    });
    children.push(child);
    await until(() => ready(port), 10_000, 'foreign server');
    expect(portHolder(port)?.pid).toBe(child.pid);
    const catalog = STACK_SERVICES.find((s) => s.name === 'catalog')!;
    let message = '';
    try {
      assertPortFree(catalog, port);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(
      new RegExp(
        `^port ${port} \\(catalog\\) is in use by pid ${child.pid} \\(.*node .*server\\.js\\), which npm start did not start`,
      ),
    );
    expect(message.split('\n')).toHaveLength(1);
  });
});

describe('start / stop / status against a supervisor process', () => {
  it('runs the supervisor as its own process; a second start starts nothing; stop stops it, its service and strays', async () => {
    const port = await freePort();
    const catalog = STACK_SERVICES.find((s) => s.name === 'catalog')!;
    const settings: StackSettings = {
      portOffset: port - catalog.port,
      services: [catalog],
      resourceSuffix: undefined,
      demoData: false,
      build: false,
    };
    const layout = stackLayout(ROOT, dir);
    const specFile = join(dir, 'spec.json');
    writeFileSync(specFile, JSON.stringify(specFor(port)));
    const sup = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'supervisor.ts'), specFile], {
      cwd: ROOT,
      env: { ...process.env, TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.base.json') },
      detached: true,
      stdio: 'ignore',
    });
    children.push(sup);
    await until(() => sup.pid !== undefined && identify(sup.pid), 5000, 'supervisor up');
    layout.registry.record('supervisor', sup.pid as number);
    await until(() => ready(port), 30_000, 'supervised service ready');
    const servicePid = readSupervisorState(layout.stateFile)?.services[0]?.pid;

    const lines: string[] = [];
    const again = await startServices({
      layout,
      settings,
      infra: {},
      log: (m) => lines.push(m),
      readyTimeoutMs: 10_000,
    });
    expect(again).toEqual({ supervisorPid: sup.pid, started: false });
    expect(lines[0]).toMatch(/already supervised by pid \d+ .*starting nothing/);
    expect(lines[1]).toBe(`catalog: running (pid ${servicePid}, restarts 0)`);
    expect(
      layout.registry
        .alive()
        .map((e) => e.name)
        .sort(),
    ).toEqual(['catalog', 'supervisor']);

    const status = await serviceStatus(layout, settings);
    expect(status.supervisor).toMatch(new RegExp(`^supervisor pid ${sup.pid}, up \\d+s$`));
    expect(status.rows.find((r) => r.service === 'catalog')).toMatchObject({
      pid: String(servicePid),
      restarts: '0',
      state: 'running, ready',
      port: String(port),
    });
    expect(status.rows.find((r) => r.service === 'orders')).toMatchObject({
      pid: '-',
      state: 'not supervised',
    });

    // a process of this checkout nobody supervises any more (lost pid file, killed supervisor): found by its environment
    const stray = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      env: { ...process.env, [STACK_MARKER]: layout.servicesDir },
      detached: true,
      stdio: 'ignore',
    });
    children.push(stray);
    await until(() => stray.pid !== undefined && identify(stray.pid), 5000, 'stray up');
    expect(strayProcesses(layout).map((p) => p.pid)).toContain(stray.pid);

    const stopped = await stopServices(layout, () => undefined);
    expect(stopped).toEqual([
      `catalog pid ${servicePid}`,
      `supervisor pid ${sup.pid} (stopped)`,
      expect.stringMatching(
        new RegExp(
          `^service \\(by its environment\\) pid ${stray.pid} \\(left running without its supervisor; stopped\\)$`,
        ),
      ),
    ]);
    expect(liveSupervisor(layout)).toBeUndefined();
    expect(layout.registry.alive()).toEqual([]);
    expect(strayProcesses(layout)).toEqual([]);
    expect(await ready(port)).toBe(false);
    expect(await stopServices(layout, () => undefined)).toEqual([]);
  });
});
