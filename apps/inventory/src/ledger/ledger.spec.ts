import { checkInvariant, replay } from './ledger';

const id = { product_id: 'p', zone: 'MSK' };

describe('ledger invariant', () => {
  it('replays restock, reserve, release, expire, commit and adjust into the counters', () => {
    const counters = replay([
      { kind: 'restock', qty: 50 },
      { kind: 'reserve', qty: 5 },
      { kind: 'reserve', qty: 3 },
      { kind: 'release', qty: 3 },
      { kind: 'reserve', qty: 2 },
      { kind: 'expire', qty: 2 },
      { kind: 'commit', qty: 5 },
      { kind: 'adjust', qty: -4 },
    ]);
    expect(counters).toEqual({ available: 41, reserved: 0, committed: 5, received: 50, adjusted: -4 });
    expect(checkInvariant(id, counters, 0, counters).ok).toBe(true);
  });

  it('replays a return as sold units back on sale: committed → available, conservation kept', () => {
    const counters = replay([
      { kind: 'restock', qty: 10 },
      { kind: 'reserve', qty: 4 },
      { kind: 'commit', qty: 4 },
      { kind: 'return', qty: 3 },
    ]);
    expect(counters).toEqual({ available: 9, reserved: 0, committed: 1, received: 10, adjusted: 0 });
    expect(checkInvariant(id, counters, 0, counters, { sold: 1, applying: 0 }).ok).toBe(true);
  });

  it('counts a return not yet applied to the document as still committed there', () => {
    const counters = replay([
      { kind: 'restock', qty: 10 },
      { kind: 'reserve', qty: 4 },
      { kind: 'commit', qty: 4 },
    ]);
    // The order is `returned` (no longer a sale) but its units have not moved back yet.
    expect(checkInvariant(id, counters, 0, counters, { sold: 0, applying: 0, returning: 4 }).ok).toBe(true);
    expect(checkInvariant(id, counters, 0, counters, { sold: 0, applying: 0 }).problems).toEqual([
      'committed = 4 but committed reservations sum to 0',
    ]);
  });

  it('flags a return applied twice that the counters and the ledger agree on', () => {
    const counters = replay([
      { kind: 'restock', qty: 10 },
      { kind: 'reserve', qty: 2 },
      { kind: 'commit', qty: 2 },
      { kind: 'reserve', qty: 2 },
      { kind: 'commit', qty: 2 },
      { kind: 'return', qty: 2 },
      { kind: 'return', qty: 2 },
    ]);
    // One of the two sales was returned; the other is still sold.
    expect(
      checkInvariant(id, counters, 0, counters, { sold: 2, applying: 0, returning: 0 }).problems,
    ).toEqual(['committed = 0 but committed reservations sum to 2']);
  });

  it('flags counters that drifted from the ledger', () => {
    const fromLedger = replay([{ kind: 'restock', qty: 10 }]);
    const report = checkInvariant(id, { ...fromLedger, available: 9, reserved: 1 }, 1, fromLedger);
    expect(report.ok).toBe(false);
    expect(report.problems.join('; ')).toMatch(/available = 9 but the ledger says 10/);
  });

  it('flags negative available and a reserved counter that does not match the open holds', () => {
    const counters = { available: -1, reserved: 3, committed: 0, received: 2, adjusted: 0 };
    const report = checkInvariant(id, counters, 2, counters);
    expect(report.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/available is negative/),
        expect.stringMatching(/open holds sum to 2/),
      ]),
    );
  });

  it('flags a broken conservation law even when the ledger agrees', () => {
    const counters = { available: 5, reserved: 0, committed: 0, received: 4, adjusted: 0 };
    expect(checkInvariant(id, counters, 0, counters).problems[0]).toMatch(/received − adjustments = 4/);
  });

  it('flags a double sale that the counters and the ledger agree on: committed above the units of committed reservations', () => {
    const counters = replay([
      { kind: 'restock', qty: 10 },
      { kind: 'reserve', qty: 2 },
      { kind: 'commit', qty: 2 },
      { kind: 'reserve', qty: 2 },
      { kind: 'commit', qty: 2 },
    ]);
    const report = checkInvariant(id, counters, 0, counters, { sold: 2, applying: 0 });
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual(['committed = 4 but committed reservations sum to 2']);
  });

  it('counts a sale whose commit is not yet applied as still held, not as committed', () => {
    const counters = replay([
      { kind: 'restock', qty: 10 },
      { kind: 'reserve', qty: 2 },
      { kind: 'reserve', qty: 3 },
      { kind: 'commit', qty: 2 },
    ]);
    expect(checkInvariant(id, counters, 3, counters, { sold: 5, applying: 3 }).ok).toBe(true);
    expect(checkInvariant(id, counters, 3, counters, { sold: 5, applying: 0 }).problems).toEqual([
      'committed = 2 but committed reservations sum to 5',
    ]);
  });
});
