import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

let clockTicks: number | undefined;

/** utime + stime of a process in seconds, from /proc/<pid>/stat (0 when it is gone): what the benchmarks report as CPU per unit of work. */
export function cpuSeconds(pid: number): number {
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return 0;
  }
}

/** The pid a local server of tools/infra recorded (`<infraDir>/<server>/server.pid`), if it runs one. */
export function infraServerPid(infraDir: string, server: string): number | undefined {
  const f = `${infraDir}/${server}/server.pid`;
  return existsSync(f) ? Number(readFileSync(f, 'utf8').trim()) || undefined : undefined;
}

/**
 * CPU seconds of a process and every live descendant (a server started under a supervisor script,
 * e.g. the cluster topology's mongod members under their `member.sh`, whose recorded pid is the
 * script's): the descendants found through each /proc/<pid>/stat's parent pid.
 */
export function treeCpuSeconds(root: number): number {
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
  let total = 0;
  for (const stack = [root]; stack.length > 0; ) {
    const pid = stack.pop()!;
    total += cpuSeconds(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}
