/**
 * Every process `npm start` ever started for this checkout, one JSON line each
 * (`.infra/services/processes.jsonl`): name, pid, start time, command line. A pid file can be lost
 * or overwritten; this file is only appended to (and pruned of finished processes), so `npm stop`
 * finds every process still alive that we started — and only those (pid + start time must match).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { identify, isSameProcess, type ProcessIdentity } from './proc';

export interface RegisteredProcess extends ProcessIdentity {
  readonly name: string;
  readonly startedAt: string;
}

export class ProcessRegistry {
  constructor(readonly file: string) {}

  /** Records a process just spawned; undefined when it is already gone. */
  record(name: string, pid: number): RegisteredProcess | undefined {
    const id = identify(pid);
    if (!id) return undefined;
    const entry: RegisteredProcess = { name, ...id, startedAt: new Date().toISOString() };
    mkdirSync(dirname(this.file), { recursive: true });
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
    return entry;
  }

  entries(): RegisteredProcess[] {
    if (!existsSync(this.file)) return [];
    const out: RegisteredProcess[] = [];
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const e = JSON.parse(line) as Partial<RegisteredProcess>;
        if (typeof e.pid === 'number' && typeof e.startTime === 'string' && typeof e.name === 'string')
          out.push(e as RegisteredProcess);
      } catch {
        // a torn line from a crash mid-write: skip it
      }
    }
    return out;
  }

  /** Recorded processes that are still the very processes recorded. */
  alive(): RegisteredProcess[] {
    return this.entries().filter(isSameProcess);
  }

  /** Drops the lines of finished processes. */
  prune(): void {
    if (!existsSync(this.file)) return;
    const keep = this.alive();
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, keep.map((e) => `${JSON.stringify(e)}\n`).join(''));
    renameSync(tmp, this.file);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export type StopOutcome = 'stopped' | 'killed' | 'gone';

/**
 * SIGTERM to the process group of a recorded process (and to the process itself), SIGKILL after
 * `timeoutMs`. Never signals a pid whose start time no longer matches (a recycled pid).
 */
export async function stopRegistered(
  p: Pick<ProcessIdentity, 'pid' | 'startTime'>,
  timeoutMs: number,
): Promise<StopOutcome> {
  if (!isSameProcess(p)) return 'gone';
  const signal = (sig: NodeJS.Signals): void => {
    if (!isSameProcess(p)) return;
    for (const target of [-p.pid, p.pid]) {
      try {
        process.kill(target, sig);
      } catch {
        // not a group leader, or already gone
      }
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isSameProcess(p)) return 'stopped';
    await sleep(100);
  }
  signal('SIGKILL');
  const killDeadline = Date.now() + 10_000;
  while (Date.now() < killDeadline && isSameProcess(p)) await sleep(100);
  if (isSameProcess(p)) throw new Error(`pid ${p.pid} survived SIGKILL`);
  return 'killed';
}
