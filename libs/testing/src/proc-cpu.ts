import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

let clockTicks: number | undefined;
/** The kernel's clock ticks per second, which /proc's CPU times count in (asked once). */
const ticks = (): number => (clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100);

/** utime + stime of a process in seconds, from /proc/<pid>/stat (0 when it is gone): what the benchmarks report as CPU per unit of work. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticks();
  } catch {
    return 0;
  }
}

/** The pid a local server of tools/infra recorded (`<infraDir>/<server>/server.pid`), if it runs one. */
export function infraServerPid(infraDir: string, server: string): number | undefined {
  const f = `${infraDir}/${server}/server.pid`;
  return existsSync(f) ? Number(readFileSync(f, 'utf8').trim()) || undefined : undefined;
}

/** A process and every live descendant, found through each /proc/<pid>/stat's parent pid (root first). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      // gone
    }
  }
  const tree: number[] = [];
  for (const stack = [root]; stack.length > 0; ) {
    const pid = stack.pop()!;
    tree.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/**
 * CPU seconds of a process and every live descendant (a server started under a supervisor script,
 * e.g. the cluster topology's mongod members under their `member.sh`, whose recorded pid is the
 * script's).
 */
export function treeCpuSeconds(root: number): number {
  return processTree(root).reduce((total, pid) => total + cpuSeconds(pid), 0);
}

/** One process's live threads by thread id: each one's name now, CPU seconds and voluntary context switches (sleeps) so far. */
export type ThreadCpu = Record<string, { readonly name: string; readonly cpuSeconds: number; readonly sleeps: number }>;

/**
 * A thread's name with its ordinal digits folded (`MutationStage-12` → `MutationStage-N`, `conn87` → `connN`),
 * so that a pool's threads count as one row and rows compare across runs.
 */
export function threadGroup(name: string): string {
  return name.replace(/[0-9]+/g, 'N');
}

/**
 * Every live thread of `pid`, from /proc/<pid>/task/<tid>/{stat,status}: where a server's CPU goes (its
 * storage, replication or network threads) and how often they slept and woke. Keyed by thread id, because a
 * thread may rename itself (Cassandra's shared pool workers take the name of the stage they run for), so
 * only a thread's own two readings may be subtracted (`threadCpuDelta`). Empty when the process is gone.
 */
export function threadCpu(pid: number): ThreadCpu {
  const out: Record<string, { name: string; cpuSeconds: number; sleeps: number }> = {};
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      out[`${pid}/${tid}`] = {
        name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
        cpuSeconds: (Number(fields[11]) + Number(fields[12])) / ticks(),
        sleeps: Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0),
      };
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** `threadCpu` of a process and its descendants (`processTree`): a server under its supervisor script. */
export function treeThreadCpu(root: number): ThreadCpu {
  return Object.assign({}, ...processTree(root).map((pid) => threadCpu(pid))) as ThreadCpu;
}

/**
 * Each thread's `b − a` (a thread born in between from zero), grouped by its name in `b` (`threadGroup`),
 * scaled (1 / checkouts gives per checkout): the `top` groups by CPU, those under `minCpu` (after scaling)
 * left out, `{ group: { cpu_s, sleeps } }`, largest first. A thread that ended in between is not in `b`, so
 * the sum is a lower bound of the process's CPU where threads come and go (connections), exact for pools.
 */
export function threadCpuDelta(a: ThreadCpu, b: ThreadCpu, scale: number, top = 8, minCpu = 0): Record<string, { cpu_s: number; sleeps: number }> {
  const groups = new Map<string, { cpu: number; sleeps: number }>();
  for (const [tid, now] of Object.entries(b)) {
    const g = groups.get(threadGroup(now.name)) ?? { cpu: 0, sleeps: 0 };
    g.cpu += (now.cpuSeconds - (a[tid]?.cpuSeconds ?? 0)) * scale;
    g.sleeps += (now.sleeps - (a[tid]?.sleeps ?? 0)) * scale;
    groups.set(threadGroup(now.name), g);
  }
  return Object.fromEntries(
    [...groups]
      .filter(([, g]) => g.cpu > minCpu)
      .sort(([, x], [, y]) => y.cpu - x.cpu)
      .slice(0, top)
      .map(([name, g]) => [name, { cpu_s: Math.round(g.cpu * 1e5) / 1e5, sleeps: Math.round(g.sleeps * 10) / 10 }]),
  );
}

/** The whole machine's CPU time so far, in seconds summed over its cores, from the first line of /proc/stat. */
export interface HostCpu {
  readonly busy: number;
  readonly idle: number;
  /** Time the hypervisor ran something else while a core of this guest had work (the `steal` column). */
  readonly steal: number;
}

/** Parses the aggregate `cpu` line of /proc/stat (user nice system idle iowait irq softirq steal …, in ticks). */
export function parseHostCpu(procStat: string, ticksPerSecond: number): HostCpu {
  const line = procStat.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) throw new Error('/proc/stat: no aggregate cpu line');
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return { busy: (user + nice + system + irq + softirq) / ticksPerSecond, idle: (idle + iowait) / ticksPerSecond, steal: steal / ticksPerSecond };
}

export function hostCpu(): HostCpu {
  return parseHostCpu(readFileSync('/proc/stat', 'utf8'), ticks());
}

/**
 * Between two readings: the share of the cores' time the guest ran (`busy`), idled, and had stolen
 * by the hypervisor (`steal`), each in percent of all cores' time — a drifting host shows as steal.
 */
export function hostCpuShares(a: HostCpu, b: HostCpu): { busy_percent: number; idle_percent: number; steal_percent: number } {
  const busy = b.busy - a.busy;
  const idle = b.idle - a.idle;
  const steal = b.steal - a.steal;
  const all = busy + idle + steal;
  const pct = (x: number) => (all > 0 ? Math.round((x / all) * 1000) / 10 : 0);
  return { busy_percent: pct(busy), idle_percent: pct(idle), steal_percent: pct(steal) };
}
