/**
 * The real `npm start` / `npm run status` / `npm stop` (start.ts, status.ts, stop.ts as processes)
 * on a stack of their own: a Kafka broker of this test (INFRA_DIR .infra/stack-test, ports
 * 24092/24093) beside the shared databases and Keycloak (INFRA_EXTERNAL), the catalog projector on
 * :23011 with its own keyspace and database (STACK_RESOURCE_SUFFIX, dropped by the global teardown).
 * The shared infrastructure the rest of `npm test` uses is never stopped.
 *  - a port held by another process: one line naming the port and the process;
 *  - the broker killed under the running stack, `npm start` again: no second projector, it
 *    becomes ready once the broker is back;
 *  - the projector SIGKILLed: back and ready within seconds, counted once;
 *  - `npm stop`: says what it stopped, and no process of this stack is left.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { loadConfig, stopInfra } from '@mw/infra';
import { uniqueName } from '@mw/testing';
import { commandLine, isSameProcess, pidsWithEnv, processStartTime } from './proc';
import { STACK_MARKER, stackSettings } from './services';
import { liveSupervisor, ready, stackLayout, startServices, stopServices } from './stack';
import { readSupervisorState } from './supervisor';
import { sleep, until } from './test-support';

const ROOT = join(__dirname, '../../..');
const OWN = join(ROOT, '.infra', 'stack-test');
const PORT = 23011;

const env: NodeJS.ProcessEnv = {
  ...process.env,
  INFRA: 'local',
  INFRA_DIR: OWN,
  INFRA_EXTERNAL: 'cassandra,mongodb,keycloak',
  KAFKA_PORT: '24092',
  KAFKA_CONTROLLER_PORT: '24093',
  PROMETHEUS_PORT: '24090',
  PROMETHEUS_SCRAPE_INTERVAL: '2s',
  ZIPKIN_PORT: '24411',
  ZIPKIN_HEAP: '128m',
  KAFKA_HEAP: '256m',
  KAFKA_BROKERS: '',
  STACK_SERVICES: 'catalog-projector',
  STACK_PORT_OFFSET: '20000',
  STACK_RESOURCE_SUFFIX: uniqueName('stk').toLowerCase(),
  STACK_DEMO_DATA: '0',
  STACK_BUILD: '0',
};
const layout = stackLayout(ROOT, OWN);

function run(script: string): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    let out = '';
    const child = spawn(
      process.execPath,
      [require.resolve('tsx/cli'), '--tsconfig', 'tsconfig.base.json', `tools/stack/src/${script}.ts`],
      {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => done({ code, out }));
  });
}

const projector = (): { pid: number | null; startTime: string | null; restarts: number } | undefined =>
  readSupervisorState(layout.stateFile)?.services.find((s) => s.name === 'catalog-projector');
const kafkaPid = (): number => Number(readFileSync(join(OWN, 'kafka', 'server.pid'), 'utf8').trim());
/** `ps`: every live process whose command line or environment names this stack. */
function stackProcesses(): number[] {
  const pids = new Set(pidsWithEnv(STACK_MARKER, layout.servicesDir));
  for (const entry of readdirSync('/proc')) {
    if (
      /^\d+$/.test(entry) &&
      Number(entry) !== process.pid &&
      commandLine(Number(entry)).includes(OWN) &&
      processStartTime(Number(entry)) !== undefined
    )
      pids.add(Number(entry));
  }
  return [...pids];
}

afterAll(async () => {
  // whatever a failed test left: this stack's services and its broker only
  await stopServices(layout, () => undefined).catch(() => undefined);
  await stopInfra(loadConfig(env), ['kafka', 'prometheus', 'zipkin'], () => undefined).catch(() => undefined);
}, 120_000);

describe('npm start / npm stop', () => {
  it('refuses a port held by a process it did not start, in one line naming the port and the process', async () => {
    // it hangs up on every connection (npm start's Prometheus scrapes this port): close() then returns at once
    const squatter: Server = createServer((socket) => socket.destroy());
    await new Promise<void>((r) => squatter.listen(PORT, '0.0.0.0', r));
    try {
      const { code, out } = await run('start');
      expect(code).toBe(1);
      const failure = out.split('\n').filter((l) => l.startsWith('[start] failed'));
      expect(failure).toEqual([
        expect.stringMatching(
          new RegExp(
            `^\\[start\\] failed: port ${PORT} \\(catalog-projector\\) is in use by pid ${process.pid} \\(.+\\), which npm start did not start for this checkout`,
          ),
        ),
      ]);
      expect(liveSupervisor(layout)).toBeUndefined();
    } finally {
      await new Promise((r) => squatter.close(r));
    }
  }, 300_000);

  it('keeps one projector through a broker crash and a SIGKILL; stop leaves no process', async () => {
    const first = await run('start');
    expect(first).toMatchObject({ code: 0 });
    expect(first.out).toMatch(/\[start\] supervisor started \(pid \d+/);
    const supervisor = liveSupervisor(layout)!;
    const original = projector()!;
    expect(original.pid).not.toBeNull();
    expect(await ready(PORT)).toBe(true);

    // Prometheus (docs/adr/0011) scrapes the stack's service with the operator token it takes itself
    expect(first.out).toContain('Prometheus http://127.0.0.1:24090');
    const target = await until(async () => {
      const res = await fetch('http://127.0.0.1:24090/api/v1/targets').catch(() => undefined);
      const body = (await res?.json().catch(() => undefined)) as
        | { data: { activeTargets: { labels: Record<string, string>; health: string; scrapeUrl: string }[] } }
        | undefined;
      return body?.data.activeTargets.find((t) => t.labels['job'] === 'catalog-projector' && t.health === 'up');
    }, 60_000, 'catalog-projector scraped by Prometheus');
    expect(target.scrapeUrl).toBe(`http://127.0.0.1:${PORT}/metrics`);

    // the broker crashes: the projector stays alive but is no longer ready
    process.kill(-kafkaPid(), 'SIGKILL');
    await until(async () => !(await ready(PORT)), 120_000, 'projector not ready without its broker');
    expect(isSameProcess({ pid: original.pid!, startTime: original.startTime! })).toBe(true);

    // while the broker is down, the services step of `npm start` (the function start.ts calls after
    // the infrastructure) finds the projector alive but not ready: it starts nothing and waits
    const lines: string[] = [];
    const waiting = startServices({
      layout,
      settings: stackSettings(env),
      infra: { ...process.env, KAFKA_BROKERS: '127.0.0.1:24092' } as Record<string, string>,
      log: (m) => lines.push(m),
      readyTimeoutMs: 300_000,
    });
    await until(() => lines.length >= 2, 30_000, 'the start decision');
    expect(lines.slice(0, 2)).toEqual([
      expect.stringMatching(
        new RegExp(`^services already supervised by pid ${supervisor.pid} .*starting nothing$`),
      ),
      `catalog-projector: running (pid ${original.pid}, restarts 0)`,
    ]);
    expect(await ready(PORT)).toBe(false);

    // the real `npm start` again: brings the broker back, starts no second projector, waits until it is ready
    const again = await run('start');
    await expect(waiting).resolves.toEqual({ supervisorPid: supervisor.pid, started: false });
    expect(again).toMatchObject({ code: 0 });
    expect(again.out).toContain(`services already supervised by pid ${supervisor.pid}`);
    expect(again.out).toContain(`catalog-projector: running (pid ${original.pid}, restarts 0)`);
    expect(again.out).not.toContain('supervisor started');
    expect(await ready(PORT)).toBe(true);
    expect(projector()).toMatchObject({ pid: original.pid, restarts: 0 });
    expect(pidsWithEnv(STACK_MARKER, layout.servicesDir)).toEqual([original.pid]);

    // SIGKILL: the supervisor starts it again, ready within seconds, one restart
    process.kill(original.pid!, 'SIGKILL');
    const killedAt = Date.now();
    const second = await until(
      () => {
        const p = projector();
        return p?.pid && p.pid !== original.pid ? p.pid : undefined;
      },
      15_000,
      'projector restarted',
    );
    await until(() => ready(PORT), 60_000, 'restarted projector ready');
    const backAfterMs = Date.now() - killedAt;
    expect(backAfterMs).toBeLessThan(60_000);
    await sleep(3000);
    expect(projector()).toMatchObject({ pid: second, restarts: 1 });
    expect(pidsWithEnv(STACK_MARKER, layout.servicesDir)).toEqual([second]);

    const status = await run('status');
    expect(status.code).toBe(0);
    expect(status.out).toMatch(
      new RegExp(`catalog-projector\\s+${PORT}\\s+${second}\\s+\\d+s\\s+1\\s+running, ready`),
    );

    const stop = await run('stop');
    expect(stop.code).toBe(0);
    expect(stop.out).toContain(`[stop] stopped catalog-projector pid ${second}`);
    expect(stop.out).toContain(`[stop] stopped supervisor pid ${supervisor.pid} (stopped)`);
    expect(stop.out).toMatch(/kafka: stopped pid \d+/);
    expect(stop.out).toMatch(/prometheus: stopped pid \d+/);
    expect(stop.out).not.toMatch(/cassandra|mongodb|keycloak/);
    await until(
      () => stackProcesses().length === 0,
      10_000,
      `no process of the stack (left: ${stackProcesses().join(', ')})`,
    );
    expect(liveSupervisor(layout)).toBeUndefined();
    expect(await ready(PORT)).toBe(false);
  }, 900_000);
});
