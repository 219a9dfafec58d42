import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { waitFor } from './test-env';

const root = join(__dirname, '../../..');

/**
 * A TypeScript script (`script`: its absolute path, e.g. an app's `src/test/group-child.ts`) run with
 * tsx in a process of its own, in its own process group so SIGKILL reaches all of it. The script prints `PAUSED <point> …` where it stops
 * for good, and the test kills it there.
 */
export class PausingChild {
  private readonly proc: ChildProcess;
  private readonly exited: Promise<unknown>;
  private out = '';

  constructor(script: string, args: string[]) {
    this.proc = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: root,
      detached: true,
      env: { ...process.env, TSX_TSCONFIG_PATH: 'tsconfig.base.json' },
    });
    this.exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.stdout?.on('data', (b: Buffer) => (this.out += b.toString()));
  }

  /** Resolves once the script printed `PAUSED <marker>`. */
  pausedAt(marker: string): Promise<true> {
    return waitFor(async () => this.out.includes(`PAUSED ${marker}`) || undefined, 60_000, `child paused at ${marker}`);
  }

  /** SIGKILL to the whole group: no shutdown hook, nothing after the stop runs. */
  async kill(): Promise<void> {
    if (this.proc.pid && this.proc.exitCode === null && this.proc.signalCode === null) process.kill(-this.proc.pid, 'SIGKILL');
    await this.exited;
  }
}

/** In the child script: says `PAUSED <marker>` and never returns (the test kills the process here). */
export function pauseForKill(marker: string): Promise<never> {
  process.stdout.write(`PAUSED ${marker}\n`);
  return new Promise<never>(() => undefined);
}
