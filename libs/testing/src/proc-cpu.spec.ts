import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { hostCpu, hostCpuShares, parseHostCpu, threadCpu, threadCpuDelta, threadGroup } from './proc-cpu';

/** This process's main thread as `threadCpu` names it (its pid is its tid). */
const mainGroup = (): string => {
  const stat = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8');
  return threadGroup(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
};

describe('threadCpu', () => {
  it('folds ordinals so that a pool is one group', () => {
    expect(threadGroup('MutationStage-12')).toBe('MutationStage-N');
    expect(threadGroup('conn87')).toBe('connN');
    expect(threadGroup('ReplCoord-3')).toBe('ReplCoord-N');
    expect(threadGroup('JournalFlusher')).toBe('JournalFlusher');
  });

  it("charges a busy loop to the thread that ran it, and counts the thread's sleeps", async () => {
    const before = threadCpu(process.pid);
    // user time only: the clock is read once per million steps, so the loop makes almost no system calls
    const until = process.cpuUsage().user + 300_000;
    let x = 0;
    while (process.cpuUsage().user < until) for (let i = 0; i < 1e6; i++) x = (x * 1664525 + 1013904223) >>> 0;
    for (let i = 0; i < 30; i++) await sleep(5);
    const delta = threadCpuDelta(before, threadCpu(process.pid), 1, 50);
    const main = delta[mainGroup()];
    expect(x).toBeGreaterThanOrEqual(0);
    expect(main?.cpu_s).toBeGreaterThanOrEqual(0.2);
    expect(main?.sleeps).toBeGreaterThanOrEqual(30);
  });

  it('keeps the top groups by CPU, largest first, after scaling', () => {
    const t = (name: string, cpuSeconds: number, sleeps: number) => ({ name, cpuSeconds, sleeps });
    const a = { '1/1': t('x-1', 1, 10), '1/2': t('y-1', 0, 0), '1/3': t('z', 5, 0) };
    const b = { '1/1': t('x-1', 2, 30), '1/2': t('y-1', 4, 8), '1/3': t('z', 5.05, 1), '1/4': t('x-2', 0.5, 2), '1/5': t('w', 0.02, 0) };
    expect(Object.entries(threadCpuDelta(a, b, 0.5, 2, 0.1))).toEqual([
      ['y-N', { cpu_s: 2, sleeps: 4 }],
      ['x-N', { cpu_s: 0.75, sleeps: 11 }],
    ]);
    expect(threadCpuDelta({}, {}, 1)).toEqual({});
    expect(threadCpu(2 ** 22 + 12345)).toEqual({});
  });

  it("counts a thread that renamed itself under its new name, with only what it spent since (a pool's worker)", () => {
    const a = { '7/70': { name: 'ReadStage-3', cpuSeconds: 100, sleeps: 5000 } };
    const b = { '7/70': { name: 'MutationStage-9', cpuSeconds: 100.25, sleeps: 5040 } };
    expect(threadCpuDelta(a, b, 1)).toEqual({ 'MutationStage-N': { cpu_s: 0.25, sleeps: 40 } });
  });
});

describe('hostCpu', () => {
  it('reads busy, idle and steal from the aggregate line, in seconds', () => {
    const stat = 'cpu  300 100 200 5000 40 10 20 130 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n';
    expect(parseHostCpu(stat, 100)).toEqual({ busy: 6.3, idle: 50.4, steal: 1.3 });
  });

  it('gives shares of all the cores’ time between two readings', () => {
    expect(hostCpuShares({ busy: 10, idle: 20, steal: 1 }, { busy: 16, idle: 22, steal: 3 })).toEqual({ busy_percent: 60, idle_percent: 20, steal_percent: 20 });
  });

  it('reads this machine’s /proc/stat: time only grows', async () => {
    const a = hostCpu();
    await sleep(50);
    const b = hostCpu();
    expect(b.busy + b.idle + b.steal).toBeGreaterThan(a.busy + a.idle + a.steal);
  });
});
