/**
 * `npm run bench:cassandra`: what one Cassandra request costs the node, in CPU and in wakeups, under
 * each of several server settings (ADR 0015 §16, §17). For each arm — environment assignments for
 * tools/infra, e.g. `CASSANDRA_TIMER_SLACK_US=0` — the local node is restarted with them, warmed
 * until its JIT settles, then driven at a fixed rate with the carts' kind of mix (conditional inserts
 * and updates, SERIAL reads, plain writes and reads); the arms alternate for `--rounds`. Reports the
 * node's CPU-ms and context switches per request, the latency, and the threads' timer slack.
 *
 *   npm run bench:cassandra -- [--rate=300] [--seconds=20] [--rounds=2] [--arms='A;B'] [--out=<file>]
 *
 * An arm is `VAR=value[,VAR=value]`; an empty arm is the defaults. Writes tools/bench/cassandra-results.json
 * unless --out says otherwise. Stops the node it restarted at the end only if it was not running before.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { Client, types } from 'cassandra-driver';
import { cpuSeconds, infraServerPid, parseExportLine, threadCpu } from '@mw/testing';

const ROOT = resolve(__dirname, '..', '..');
const KEYSPACE = 'bench_cassandra_requests';

function arg(name: string, fallback: string): string {
  const hit = process.argv.slice(2).find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : fallback;
}

function whole(name: string, fallback: number): number {
  const raw = arg(name, String(fallback));
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number ≥ 1, got "${raw}"`);
  return n;
}

const RATE = whole('rate', 300);
const SECONDS = whole('seconds', 20);
const ROUNDS = whole('rounds', 2);
const ARMS = arg('arms', 'CASSANDRA_TIMER_SLACK_US=0;CASSANDRA_TIMER_SLACK_US=1000').split(';');
const OUT = arg('out', join(__dirname, 'cassandra-results.json'));

function armEnv(arm: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of arm.split(',').filter((p) => p.trim() !== '')) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(pair.trim());
    if (!m) throw new Error(`--arms: "${pair}" is not VAR=value`);
    env[m[1]!] = m[2]!;
  }
  return env;
}

const infraDir = (): string => process.env['INFRA_DIR'] ?? join(ROOT, '.infra');

function infra(verb: 'up' | 'down', env: Record<string, string>): void {
  execFileSync('npm', ['run', '-s', `infra:${verb}`, '--', 'cassandra'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...env },
    timeout: 300_000,
  });
}

/** Voluntary context switches of every thread of the process, summed. */
const sleeps = (pid: number): number =>
  Object.values(threadCpu(pid)).reduce((total, t) => total + t.sleeps, 0);

/** The timer slacks the process's threads run with, in µs, and how many threads have each. */
function slacks(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const us = String(Number(readFileSync(`/proc/${tid}/timerslack_ns`, 'utf8')) / 1000);
      out[us] = (out[us] ?? 0) + 1;
    } catch {
      // the thread ended
    }
  }
  return out;
}

const round = (n: number, d = 3): number => Number(n.toFixed(d));
const pct = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/**
 * About `rate` requests a second, `n` in all, the carts' kind of mix: a cart starts every
 * `statements / rate` seconds and runs its statements one after another, as a cart's checkout does
 * (no two of one cart's LWTs contend). Resolves with each request's latency (ms) and the failures.
 */
async function drive(
  client: Client,
  rate: number,
  n: number,
  tag: string,
): Promise<{ latencies: number[]; errors: number }> {
  const statements = [
    (k: string) =>
      client.execute(
        `INSERT INTO ${KEYSPACE}.carts (id, revision, status) VALUES (?, 1, 'open') IF NOT EXISTS`,
        [k],
        { prepare: true },
      ),
    (k: string) =>
      client.execute(`INSERT INTO ${KEYSPACE}.lines (id, line, qty) VALUES (?, 1, 2)`, [k], {
        prepare: true,
      }),
    (k: string) =>
      client.execute(`SELECT revision FROM ${KEYSPACE}.carts WHERE id = ?`, [k], {
        prepare: true,
        consistency: types.consistencies.localSerial,
      }),
    (k: string) =>
      client.execute(`UPDATE ${KEYSPACE}.carts SET revision = 2 WHERE id = ? IF revision = 1`, [k], {
        prepare: true,
      }),
    (k: string) =>
      client.execute(`INSERT INTO ${KEYSPACE}.lines (id, line, qty) VALUES (?, 2, 1)`, [k], {
        prepare: true,
      }),
    (k: string) => client.execute(`SELECT qty FROM ${KEYSPACE}.lines WHERE id = ?`, [k], { prepare: true }),
  ];
  const latencies: number[] = [];
  let errors = 0;
  const cart = async (key: string): Promise<void> => {
    for (const statement of statements) {
      const t0 = process.hrtime.bigint();
      try {
        await statement(key);
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      } catch {
        errors++; // a timeout under overload: counted and reported, the cart goes on
      }
    }
  };
  const carts: Promise<void>[] = [];
  const start = Date.now();
  const count = Math.ceil(n / statements.length);
  for (let i = 0; i < count; i++) {
    const wait = start + (i * statements.length * 1000) / rate - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    carts.push(cart(`${tag}-${i}`));
  }
  await Promise.all(carts);
  return { latencies: latencies.sort((a, b) => a - b), errors };
}

async function measureArm(arm: string, roundNo: number): Promise<Record<string, unknown>> {
  const env = armEnv(arm);
  infra('down', {});
  infra('up', env);
  const pid = infraServerPid(infraDir(), 'cassandra');
  if (!pid) throw new Error('cassandra did not record a pid');
  const conn = parseExportLine(
    execFileSync('npm', ['run', '-s', 'infra:env'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, ...env },
      timeout: 120_000,
    }),
  );
  const client = new Client({
    contactPoints: conn['CASSANDRA_CONTACT_POINTS']!.split(','),
    localDataCenter: conn['CASSANDRA_LOCAL_DATACENTER'] ?? 'datacenter1',
  });
  await client.connect();
  try {
    await client.execute(
      `CREATE KEYSPACE IF NOT EXISTS ${KEYSPACE} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
    );
    await client.execute(
      `CREATE TABLE IF NOT EXISTS ${KEYSPACE}.carts (id text PRIMARY KEY, revision int, status text)`,
    );
    await client.execute(
      `CREATE TABLE IF NOT EXISTS ${KEYSPACE}.lines (id text, line int, qty int, PRIMARY KEY (id, line))`,
    );
    // warm-up: the same mix until a pass costs within 10 % of the one before (the JIT settles), at most 6
    let previous = Infinity;
    let passes = 0;
    for (let pass = 0; pass < 6; pass++) {
      passes++;
      const c0 = cpuSeconds(pid);
      await drive(client, RATE, RATE * 10, `w${roundNo}-${pass}-${Date.now()}`);
      const cost = cpuSeconds(pid) - c0;
      if (Number.isFinite(previous) && Math.abs(cost - previous) <= 0.1 * previous) break;
      previous = cost;
    }
    const n = RATE * SECONDS;
    const c0 = cpuSeconds(pid);
    const s0 = sleeps(pid);
    const t0 = Date.now();
    const { latencies: lat, errors } = await drive(client, RATE, n, `m${roundNo}-${Date.now()}`);
    const secs = (Date.now() - t0) / 1000;
    const row = {
      arm: arm || '(defaults)',
      round: roundNo,
      requests: n,
      failed: errors,
      seconds: round(secs, 1),
      cpu_ms_per_request: round(((cpuSeconds(pid) - c0) * 1000) / n),
      cpu_percent_of_a_core: round(((cpuSeconds(pid) - c0) / secs) * 100, 1),
      context_switches_per_request: round((sleeps(pid) - s0) / n, 1),
      latency_ms: { p50: round(pct(lat, 0.5), 2), p99: round(pct(lat, 0.99), 2) },
      timer_slack_us_threads: slacks(pid),
      warmup_passes: passes,
      paxos_variant: (
        await client.execute(`SELECT value FROM system_views.settings WHERE name = 'paxos_variant'`)
      ).first()?.['value'],
    };
    console.log(JSON.stringify(row));
    return row;
  } finally {
    await client.execute(`DROP KEYSPACE IF EXISTS ${KEYSPACE}`).catch(() => undefined);
    await client.shutdown();
  }
}

async function main(): Promise<void> {
  const wasRunning = infraServerPid(infraDir(), 'cassandra') !== undefined;
  const rows: Record<string, unknown>[] = [];
  try {
    for (let r = 1; r <= ROUNDS; r++)
      for (const arm of r % 2 === 1 ? ARMS : [...ARMS].reverse()) rows.push(await measureArm(arm, r));
  } finally {
    // back to the defaults for whatever runs next
    infra('down', {});
    if (wasRunning) infra('up', {});
  }
  const report = {
    command: `npm run bench:cassandra${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim(),
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model,
      mem_gb: Math.round(os.totalmem() / 2 ** 30),
      kernel: os.release(),
      node: process.version,
    },
    setup: `one local node (tools/infra), restarted per arm and round, warmed until a 10 s pass costs within 10 % of the one before; then ${RATE} requests/s for ${SECONDS} s: a cart every 6 / rate seconds, each running one after another a conditional insert, a plain write, a LOCAL_SERIAL read, a conditional update, a plain write and a plain read`,
    rows,
  };
  writeFileSync(OUT, `${JSON.stringify(report, null, 1)}\n`);
  console.log(`[bench] wrote ${OUT}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
