import { setTimeout as sleep } from 'node:timers/promises';
import { runLoad, runOfferedLoad } from '../bench/load';

/** A read that answers rows after `ms`; every request the test plants as failing or empty answers at once. */
const plantedOp =
  (ms: number, fails: (i: number) => boolean, empty: (i: number) => boolean) =>
  async (i: number): Promise<number> => {
    if (fails(i)) {
      await new Promise((r) => setImmediate(r));
      throw new Error(`planted failure ${i}`);
    }
    if (empty(i)) {
      await new Promise((r) => setImmediate(r));
      return 0;
    }
    await sleep(ms);
    return 20;
  };

describe('bench load runner (issue 22 item 15)', () => {
  it('counts failed and empty requests apart: they add neither to requests/s nor to the latencies', async () => {
    const r = await runLoad(
      plantedOp(
        20,
        (i) => i % 2 === 1,
        (i) => i % 4 === 2,
      ),
      { concurrency: 4, durationMs: 600, warmup: 4 },
    );
    expect(r.errors).toBeGreaterThan(10);
    expect(r.empty).toBeGreaterThan(10);
    expect(r.first_error).toMatch(/^planted failure/);
    expect(r.requests).toBeGreaterThan(10);
    // Four loops of 20 ms reads answer at most 200 rows-bearing requests a second; the instant
    // failures and empties would multiply that and pull the median towards 0 ms if they counted.
    expect(r.req_per_s).toBeLessThanOrEqual(220);
    expect(r.p50_ms).toBeGreaterThanOrEqual(19);
    expect(r.unloaded_p50_ms).toBeGreaterThanOrEqual(19);
  });

  it('refuses to measure a read side whose warm-up found nothing', async () => {
    await expect(
      runLoad(
        plantedOp(
          1,
          () => false,
          () => true,
        ),
        { concurrency: 1, durationMs: 50, warmup: 3 },
      ),
    ).rejects.toThrow('every warm-up request failed or came back empty');
  });

  it('offered load: a latency runs from the scheduled start, so a stall that delays sending is counted (no coordinated omission)', async () => {
    // The process stalls 300 ms (a GC pause, a busy neighbour) 50 ms into a run offering 200 req/s:
    // the ~60 requests due meanwhile are sent late. Timed from the send each answers in a tick; timed
    // from its due time, the stall shows in the tail as it would for a real client.
    const quick = async (): Promise<number> => {
      await new Promise((r) => setImmediate(r));
      return 1;
    };
    setTimeout(() => {
      const until = performance.now() + 300;
      while (performance.now() < until);
    }, 50);
    const r = await runOfferedLoad(quick, { ratePerS: 200, durationMs: 500, maxOutstanding: 1000 });
    expect(r.requests).toBe(100);
    expect(r.p99_ms).toBeGreaterThanOrEqual(200);
  });

  it('offered load: requests due while the outstanding cap is reached are shed and counted, never sent', async () => {
    let sent = 0;
    const slow = async (): Promise<number> => {
      sent++;
      await sleep(100);
      return 1;
    };
    const r = await runOfferedLoad(slow, { ratePerS: 100, durationMs: 500, maxOutstanding: 2 });
    expect(r.offered_per_s).toBe(100);
    expect(r.shed).toBeGreaterThan(30);
    expect(r.requests + r.shed).toBe(50);
    expect(sent).toBe(r.requests);
    expect(r.p50_ms).toBeGreaterThanOrEqual(99);
  });
});
