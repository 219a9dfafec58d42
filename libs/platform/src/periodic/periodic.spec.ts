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
});
