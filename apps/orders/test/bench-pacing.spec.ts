import { paced, pool } from '../bench/pacing';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` for each item and records how many ran at once and when each started. */
function tracker(hold: (i: number) => number) {
  let now = 0;
  let most = 0;
  const starts: number[] = [];
  const fn = async (i: number) => {
    starts[i] = performance.now();
    most = Math.max(most, ++now);
    await sleep(hold(i));
    now--;
  };
  return { fn, starts, most: () => most };
}

describe('the checkout benchmark’s drivers', () => {
  it('pool: every item once, never more than the concurrency at a time', async () => {
    const t = tracker(() => 5);
    await pool([...Array(20).keys()], 4, t.fn);
    expect(t.starts.filter((s) => s !== undefined)).toHaveLength(20);
    expect(t.most()).toBe(4);
  });

  it('paced: starts follow the rate whatever the items take, and every item runs', async () => {
    const t = tracker(() => 60); // each outlives several arrivals: a closed loop of 1 would start one per 60 ms
    const started = performance.now(); // before paced's own start, so every due time is at least this + i × 5 ms
    await paced([...Array(10).keys()], 200, 64, t.fn);
    // the i-th no earlier than i × 5 ms after the loop began (2 ms allowed: a timer may fire up to a millisecond early)
    for (let i = 1; i < 10; i++) expect(t.starts[i]! - started).toBeGreaterThanOrEqual(i * 5 - 2);
    expect(t.most()).toBeGreaterThan(1); // overlapping: an open loop
    expect(performance.now() - started).toBeLessThan(10 * 60); // not one after the other
  });

  it('paced: an arrival finding the cap in flight waits for one to finish', async () => {
    const t = tracker(() => 30);
    await paced([...Array(12).keys()], 1000, 3, t.fn);
    expect(t.most()).toBe(3);
    expect(t.starts.filter((s) => s !== undefined)).toHaveLength(12);
  });
});
