import { type BoundsStore, IdleBackoff, RelayBounds, ScanWindow, writtenInTime } from './relay-pacing';

const at = (ms: number) => new Date(Date.parse('2026-11-25T12:00:00.000Z') + ms);

describe('relay time bound (ScanWindow)', () => {
  const w = () => new ScanWindow(10_000);

  it('reads a bucket whole before its first pass, then from the pass start minus the lookback', () => {
    const win = w();
    expect(win.from(0)).toBeNull();
    win.passed(0, { startedAt: at(60_000), seen: [at(1), at(2)], pageFull: false, kept: [] });
    expect(win.from(0)).toEqual(at(50_000));
    expect(win.from(1)).toBeNull();
  });

  it('stays at the oldest row a pass left in place, and at the last row read when the page was full', () => {
    const win = w();
    win.passed(0, { startedAt: at(60_000), seen: [at(5), at(7)], pageFull: false, kept: [at(7)] });
    expect(win.from(0)).toEqual(at(7));
    const full = w();
    full.passed(0, { startedAt: at(60_000), seen: [at(5), at(9)], pageFull: true, kept: [] });
    expect(full.from(0)).toEqual(at(9));
  });

  it('never moves back', () => {
    const win = w();
    win.passed(0, { startedAt: at(60_000), seen: [], pageFull: false, kept: [] });
    win.passed(0, { startedAt: at(55_000), seen: [], pageFull: false, kept: [] });
    expect(win.from(0)).toEqual(at(50_000));
  });

  it('lets a writer act on an intent only when its write was acknowledged within half the lookback', () => {
    expect(writtenInTime(at(0), at(5_000), 10_000)).toBe(true);
    expect(writtenInTime(at(0), at(5_001), 10_000)).toBe(false);
  });
});

describe('relay idle backoff', () => {
  /** Which of `ticks` ticks ran a pass, the pass answering `found(i)` for its i-th run. */
  async function runs(
    b: IdleBackoff,
    ticks: number,
    found: (run: number) => number = () => 0,
  ): Promise<number[]> {
    const ran: number[] = [];
    for (let t = 0; t < ticks; t++) await b.tick(async () => found(ran.push(t) - 1));
    return ran;
  }

  it('doubles the wait after each empty pass up to the cap, so an idle relay reads once per cap ticks', async () => {
    expect(await runs(new IdleBackoff(8), 40)).toEqual([0, 2, 6, 14, 22, 30, 38]);
  });

  it('reads every tick while passes find rows', async () => {
    expect(await runs(new IdleBackoff(8), 5, () => 1)).toEqual([0, 1, 2, 3, 4]);
  });

  it('a wake makes the next tick read and resets the backoff, also when it arrives during a pass', async () => {
    const b = new IdleBackoff(8);
    await runs(b, 15);
    b.wake();
    const ran: number[] = [];
    await b.tick(async () => (ran.push(0), 0));
    expect(ran).toEqual([0]);
    const during = new IdleBackoff(8);
    await during.tick(async () => {
      during.wake();
      return 0;
    });
    let next = false;
    await during.tick(async () => ((next = true), 0));
    expect(next).toBe(true);
  });
});

describe('relay bounds kept across restarts (RelayBounds)', () => {
  class Store implements BoundsStore {
    saved = new Map<number, Date>();
    loads = 0;
    saves = 0;
    fail = false;
    async load(): Promise<ReadonlyMap<number, Date>> {
      this.loads++;
      return new Map(this.saved);
    }
    async save(_relay: string, bounds: ReadonlyMap<number, Date>): Promise<void> {
      if (this.fail) throw new Error('down');
      this.saves++;
      this.saved = new Map(bounds);
    }
  }
  const pass = { startedAt: at(60_000), rows: [], pageSize: 200, gone: new Set<never>() };

  it('a new relay starts from the saved bounds, loaded once', async () => {
    const store = new Store();
    store.saved.set(0, at(42));
    const b = new RelayBounds('checkout', store, new ScanWindow(10_000), 1000);
    expect(await b.from(0)).toEqual(at(42));
    expect(await b.from(1)).toBeNull();
    expect(store.loads).toBe(1);
  });

  it('saves only after deletions, at most once per period, and retries a failed save', async () => {
    const store = new Store();
    const b = new RelayBounds('checkout', store, new ScanWindow(10_000), 1000);
    await b.from(0);
    b.passed(0, pass);
    await b.saveIfDue(5_000);
    expect(store.saves).toBe(0); // idle: nothing deleted, nothing written
    b.deleted();
    await b.saveIfDue(5_000);
    expect(store.saved.get(0)).toEqual(at(50_000));
    b.deleted();
    await b.saveIfDue(5_500);
    expect(store.saves).toBe(1); // within the period
    store.fail = true;
    await expect(b.saveIfDue(6_000)).rejects.toThrow('down');
    store.fail = false;
    await b.saveIfDue(7_000);
    expect(store.saves).toBe(2);
  });
});
