import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

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
