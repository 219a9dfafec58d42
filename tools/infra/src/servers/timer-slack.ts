import { spawnSync } from 'node:child_process';

/**
 * A server started with a wider timer slack (ADR 0015 §16). Linux lets a timed sleep end up to the
 * thread's slack late (50 µs by default) so that wakeups that fall close together share one. A
 * thread inherits the slack of the thread that creates it, and the value survives `execve`; so a
 * launcher that sets its own slack (`prctl(PR_SET_TIMERSLACK)`, no privilege needed) and then
 * `exec`s the server gives every thread of the server that slack, under the same pid.
 *
 * Why Cassandra wants it: its shared worker pool keeps an idle worker "spinning" in
 * `LockSupport.parkNanos` sleeps of 10 µs to 1 ms, so that a request arriving finds a thread awake.
 * On two cores under load each of those sleeps is a wakeup taken from the other processes: at 300
 * requests/s of the carts' kind of mix, 46–54 context switches and 3.7–4.2 CPU-ms per request at
 * the kernel's 50 µs, 19–21 and 1.3–1.9 at 1 ms (`npm run bench:cassandra`,
 * tools/bench/cassandra-results.json).
 */

/** `prctl` option number of PR_SET_TIMERSLACK (linux/prctl.h). */
const PR_SET_TIMERSLACK = 29;

/**
 * The launcher, a few lines of Python (the README's prerequisites have Python ≥ 3.10): sets its
 * own timer slack to argv[1] nanoseconds, fails loudly if the kernel refuses, then becomes argv[2:].
 */
const LAUNCHER = [
  'import ctypes, os, sys',
  'libc = ctypes.CDLL(None, use_errno=True)',
  `if libc.prctl(${PR_SET_TIMERSLACK}, int(sys.argv[1]), 0, 0, 0) != 0:`,
  '    sys.exit("prctl(PR_SET_TIMERSLACK) failed: " + os.strerror(ctypes.get_errno()))',
  'os.execvp(sys.argv[2], sys.argv[2:])',
].join('\n');

export interface Command {
  readonly command: string;
  readonly args: readonly string[];
}

/** The command run with every thread's timer slack at `slackUs` microseconds; 0 leaves it as it is. */
export function withTimerSlack(cmd: Command, slackUs: number, python = 'python3'): Command {
  if (slackUs === 0) return cmd;
  return { command: python, args: ['-c', LAUNCHER, String(slackUs * 1000), cmd.command, ...cmd.args] };
}

/**
 * The command with the configured slack when python3 is here; without python3 the command as it is,
 * and a line saying so (the server still starts, with the kernel's default slack).
 */
export function withConfiguredTimerSlack(
  cmd: Command,
  slackUs: number,
  log: (message: string) => void,
): Command {
  if (slackUs === 0) return cmd;
  if (!hasPython()) {
    log(
      `python3 not found: timer slack left at the kernel's default (CASSANDRA_TIMER_SLACK_US=0 silences this)`,
    );
    return cmd;
  }
  return withTimerSlack(cmd, slackUs);
}

let pythonFound: boolean | undefined;

/** Whether `python3` runs here (checked once). */
export function hasPython(python = 'python3'): boolean {
  if (pythonFound === undefined) {
    const r = spawnSync(python, ['-c', 'pass'], { timeout: 30_000 });
    pythonFound = !r.error && r.status === 0;
  }
  return pythonFound;
}
