import { IdleBackoff, StockActivity } from './idle-backoff';

describe('IdleBackoff', () => {
  /** Which of `n` ticks polled, the poll finding what `found(tick)` says. */
  async function polled(
    backoff: IdleBackoff,
    n: number,
    found: (tick: number) => number = () => 0,
    during?: (tick: number) => void,
  ) {
    const ticks: number[] = [];
    for (let t = 1; t <= n; t++)
      await backoff.tick(async () => {
        ticks.push(t);
        during?.(t);
        return found(t);
      });
    return ticks;
  }

  it('polls every tick while it finds work, then doubles the gap up to the factor', async () => {
    expect(await polled(new IdleBackoff(8), 45, (t) => (t <= 3 ? 1 : 0))).toEqual([
      1, 2, 3, 4, 6, 10, 18, 26, 34, 42,
    ]);
  });

  it('a wake makes the next tick poll and resets the gap', async () => {
    const backoff = new IdleBackoff(8);
    await polled(backoff, 40);
    backoff.wake();
    expect(await polled(backoff, 8)).toEqual([1, 3, 7]);
  });

  it('a wake that arrives during an empty poll is kept: the next tick polls', async () => {
    const backoff = new IdleBackoff(8);
    await polled(backoff, 40);
    backoff.wake();
    expect(
      await polled(
        backoff,
        3,
        () => 0,
        (t) => t === 1 && backoff.wake(),
      ),
    ).toEqual([1, 2]);
  });

  it('StockActivity tells every listener', () => {
    const activity = new StockActivity();
    const heard: string[] = [];
    activity.onChange(() => heard.push('a'));
    activity.onChange(() => heard.push('b'));
    activity.changed();
    expect(heard).toEqual(['a', 'b']);
  });
});
