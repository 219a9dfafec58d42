import pino from 'pino';
import { Periodic } from './periodic';

const logger = pino({ level: 'silent' });

/** Lets the promise chain of a finished run settle (fake timers do not run microtasks by themselves). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('Periodic', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('backs off while the task finds nothing (0 / false), up to idleMaxMs, and returns to the interval when it finds work', async () => {
    let work = 0;
    const runs: number[] = [];
    const p = new Periodic(
      't',
      100,
      async () => {
        runs.push(Date.now());
        return work;
      },
      logger,
      { idleMaxMs: 800 },
    );
    p.start();
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      await jest.advanceTimersByTimeAsync(p.currentDelayMs);
      await settle();
      delays.push(p.currentDelayMs);
    }
    expect(delays).toEqual([200, 400, 800, 800, 800, 800]);
    work = 3;
    await jest.advanceTimersByTimeAsync(800);
    await settle();
    expect(p.currentDelayMs).toBe(100);
    await p.stop();
  });

  it('without idleMaxMs keeps its interval whatever the task answers', async () => {
    const p = new Periodic('t', 100, async () => 0, logger);
    p.start();
    for (let i = 0; i < 4; i++) await jest.advanceTimersByTimeAsync(100);
    expect(p.currentDelayMs).toBe(100);
    await p.stop();
  });

  it('a kick runs it at once and resets the backoff', async () => {
    let runs = 0;
    const p = new Periodic(
      't',
      100,
      async () => {
        runs++;
        return false;
      },
      logger,
      { idleMaxMs: 1600 },
    );
    p.start();
    await jest.advanceTimersByTimeAsync(100 + 200 + 400 + 800);
    expect(runs).toBe(4);
    expect(p.currentDelayMs).toBe(1600);
    p.kick();
    await jest.advanceTimersByTimeAsync(0);
    expect(runs).toBe(5);
    expect(p.currentDelayMs).toBe(200); // reset to the interval, then doubled once by the idle kicked run
    await p.stop();
  });

  it('a kick during a run schedules another run right after it (never dropped)', async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const p = new Periodic(
      't',
      10_000,
      async () => {
        runs++;
        if (runs === 1) await new Promise<void>((r) => (release = r));
        return 1;
      },
      logger,
    );
    p.start();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(runs).toBe(1);
    p.kick(); // arrives while run 1 is still working
    release();
    await settle();
    await jest.advanceTimersByTimeAsync(0);
    expect(runs).toBe(2); // not 10 s later
    await p.stop();
  });

  it('a failed run is retried at the interval, not the idle bound', async () => {
    let fail = false;
    const p = new Periodic(
      't',
      100,
      async () => {
        if (fail) throw new Error('boom');
        return 0;
      },
      logger,
      { idleMaxMs: 1000 },
    );
    p.start();
    await jest.advanceTimersByTimeAsync(100 + 200 + 400);
    expect(p.currentDelayMs).toBe(800);
    fail = true;
    await jest.advanceTimersByTimeAsync(800);
    await settle();
    expect(p.currentDelayMs).toBe(100);
    await p.stop();
  });
  it('a task answering when its next work falls due sleeps until then: longer than the interval while idle, never past the due time, never under the interval', async () => {
    const runs: number[] = [];
    let nextDueAt: number | undefined;
    const p = new Periodic(
      't',
      100,
      async () => {
        runs.push(Date.now());
        return { work: 0, nextDueAt };
      },
      logger,
      { idleMaxMs: 10_000 },
    );
    const t0 = Date.now();
    p.start();
    await jest.advanceTimersByTimeAsync(100); // first run: nothing known → idle backoff
    await settle();
    expect(p.currentDelayMs).toBe(200);
    nextDueAt = Date.now() + 150; // a deadline 150 ms ahead: the backoff (400) must not pass it
    await jest.advanceTimersByTimeAsync(200);
    await settle();
    expect(p.currentDelayMs).toBe(100); // due in -50 ms at most → the interval, not sooner
    nextDueAt = Date.now() + 3_000;
    await jest.advanceTimersByTimeAsync(100);
    await settle();
    expect(p.currentDelayMs).toBe(800); // idle backoff (kept apart from the shortened wait) below the due time wins
    nextDueAt = Date.now() + 1_000;
    await jest.advanceTimersByTimeAsync(800);
    await settle();
    expect(p.currentDelayMs).toBe(1_000 - 800 + 5); // ends at the deadline (+5 ms slack), not at 1,600
    expect(runs.map((r) => r - t0)).toEqual([100, 300, 400, 1200]);
    await p.stop();
  });

  it('wakeBy(at) brings a long idle wait forward to `at`, ignores a later time, and is kept when it comes during a run', async () => {
    const runs: number[] = [];
    let release: (() => void) | undefined;
    let slow = false;
    const p = new Periodic(
      't',
      100,
      async () => {
        runs.push(Date.now());
        if (slow) await new Promise<void>((r) => (release = r));
        return 0;
      },
      logger,
      { idleMaxMs: 60_000 },
    );
    const t0 = Date.now();
    p.start();
    for (const wait of [100, 200, 400, 800, 1_600]) {
      await jest.advanceTimersByTimeAsync(wait);
      await settle();
    }
    expect(runs).toHaveLength(5); // at 3,100 ms; next idle wait 3,200 → 6,300
    p.wakeBy(Date.now() + 10_000); // later than the scheduled run: nothing changes
    p.wakeBy(t0 + 3_600);
    await jest.advanceTimersByTimeAsync(505);
    await settle();
    expect(runs.map((r) => r - t0).slice(5)).toEqual([3_605]);
    // during a run: a wake is not lost, and ends the next wait early
    slow = true;
    p.wakeBy(Date.now() + 50);
    await jest.advanceTimersByTimeAsync(55);
    expect(runs).toHaveLength(7);
    p.wakeBy(Date.now() + 300);
    slow = false;
    release?.();
    await settle();
    await jest.advanceTimersByTimeAsync(305);
    await settle();
    expect(runs).toHaveLength(8);
    expect(runs[7]! - runs[6]!).toBe(305);
    await p.stop();
  });
});
