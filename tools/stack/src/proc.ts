/**
 * What /proc says about a process and a port (Linux). A pid alone does not identify a process —
 * it is recycled — so the stack records pid + start time (field 22 of /proc/<pid>/stat, clock
 * ticks since boot, fixed for the life of a process) + command line, and only ever signals a pid
 * whose start time still matches.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcessIdentity {
  readonly pid: number;
  /** /proc/<pid>/stat field 22 (clock ticks after boot), as text. */
  readonly startTime: string;
  readonly command: string;
}

function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) is in parentheses and may contain spaces: split after the last ')'
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Start time of a live process (undefined when gone or a zombie). */
export function processStartTime(pid: number): string | undefined {
  const rest = statFields(pid);
  if (!rest) return undefined;
  const state = rest[0];
  if (state === 'Z' || state === 'X') return undefined;
  return rest[19];
}

export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

export function identify(pid: number): ProcessIdentity | undefined {
  const startTime = processStartTime(pid);
  return startTime === undefined ? undefined : { pid, startTime, command: commandLine(pid) };
}

/** True while the very process that was recorded is alive (same pid, same start time). */
export function isSameProcess(recorded: Pick<ProcessIdentity, 'pid' | 'startTime'>): boolean {
  return processStartTime(recorded.pid) === recorded.startTime;
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  ticksPerSecond ??=
    Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim() || '100') || 100;
  return ticksPerSecond;
}

/** Seconds since the process started (from its start time and the system uptime). */
export function processUptimeSeconds(recorded: Pick<ProcessIdentity, 'startTime'>): number | undefined {
  try {
    const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    const ticks = clockTicks();
    return Math.max(0, uptime - Number(recorded.startTime) / ticks);
  } catch {
    return undefined;
  }
}

/** Socket inodes listening on `port` (any address, IPv4 and IPv6), with the owning uid. */
function listeningInodes(port: number): { inode: string; uid: number }[] {
  const found: { inode: string; uid: number }[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const local = cols[1];
      if (!local || cols[3] !== '0A') continue; // 0A = LISTEN
      const hexPort = local.slice(local.lastIndexOf(':') + 1);
      if (parseInt(hexPort, 16) === port && cols[9]) found.push({ inode: cols[9], uid: Number(cols[7]) });
    }
  }
  return found;
}

/** Pids holding a socket inode open (only processes whose /proc/<pid>/fd we may read). */
function pidsWithSocket(inodes: ReadonlySet<string>): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${entry}/fd/${fd}`));
        if (m?.[1] && inodes.has(m[1])) {
          pids.push(Number(entry));
          break;
        }
      } catch {
        // fd closed while scanning
      }
    }
  }
  return pids;
}

export interface PortHolder {
  readonly pid?: number;
  readonly command?: string;
  /** How the holder is described when its pid is not visible (another user's process). */
  readonly description: string;
}

/**
 * Who listens on `port`: /proc/net/tcp{,6} + /proc/*\/fd, then `ss -ltnp` when /proc did not
 * reveal the owner. Undefined when nothing listens.
 */
export function portHolder(port: number): PortHolder | undefined {
  const inodes = listeningInodes(port);
  if (inodes.length > 0) {
    const pid = pidsWithSocket(new Set(inodes.map((i) => i.inode)))[0];
    if (pid !== undefined) {
      const command = commandLine(pid);
      return { pid, command, description: `pid ${pid} (${command.slice(0, 120)})` };
    }
  }
  try {
    const out =
      spawnSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8', timeout: 3000 }).stdout ?? '';
    const m = /users:\(\("([^"]+)",pid=(\d+)/.exec(out);
    if (m?.[2]) {
      const pid = Number(m[2]);
      return {
        pid,
        command: commandLine(pid) || m[1],
        description: `pid ${pid} (${commandLine(pid).slice(0, 120) || m[1]})`,
      };
    }
    if (out.trim() && inodes.length === 0) return { description: 'a process ss cannot name' };
  } catch {
    // ss not installed
  }
  const first = inodes[0];
  return first
    ? { description: `a process of uid ${first.uid} (its pid is not visible to this user)` }
    : undefined;
}

/** Pids whose environment holds `KEY=value` (processes of this user only). */
export function pidsWithEnv(key: string, value: string): number[] {
  const needle = `${key}=${value}`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (
        readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(needle) &&
        processStartTime(Number(entry)) !== undefined
      )
        pids.push(Number(entry));
    } catch {
      // not ours or gone
    }
  }
  return pids;
}
