import { applyCountersOf, applyPerCheckout, commandsPerCheckout, type Counters, hostsOf, perCheckout } from '../bench/counters';

/**
 * bench:checkout's operations per checkout (issue 22 item 13): whole-database deltas include the
 * idle services' polling; each level's idle baseline is subtracted and every level counts.
 */
const at = (queries: number, updates: number, casReads: number, msgs: number): Counters => ({
  mongo: { queries, update: updates },
  cassandra: { writes: 0, reads: casReads },
  kafka: { orders: msgs },
});

describe('bench:checkout operations per checkout (issue 22 item 13)', () => {
  it("subtracts each level's own idle rate × its seconds, and divides the sum of every level by every level's checkouts", () => {
    // level 1: 10 s, 100 checkouts, each doing 3 queries, 5 updates, 2 Cassandra reads, 4 messages;
    // the idle services poll 8 queries/s and 1 Cassandra read/s beside them.
    const l1 = {
      before: at(1000, 0, 10, 0),
      after: at(1000 + 300 + 80, 500, 10 + 200 + 10, 400),
      idlePerS: at(8, 0, 1, 0),
      seconds: 10,
      checkouts: 100,
    };
    // level 2: 2 s, 50 checkouts doing 6 queries each (bigger carts); its idle rate is 20 queries/s.
    const l2 = {
      before: at(5000, 900, 500, 900),
      after: at(5000 + 300 + 40, 900 + 250, 500 + 100 + 2, 900 + 200),
      idlePerS: at(20, 0, 1, 0),
      seconds: 2,
      checkouts: 50,
    };
    expect(perCheckout([l1, l2], ['orders'])).toEqual({
      mongo: { queries: 4, update: 5 }, // (300 + 300) / 150: neither level alone (3 or 6)
      cassandra: { writes: 0, reads: 2 },
      kafka: { orders: 4 },
    });
  });
});

describe("bench:checkout's primary commands per checkout (issue 31)", () => {
  const status = (commands: Record<string, number>) => ({ metrics: { commands: Object.fromEntries(Object.entries(commands).map(([k, v]) => [k, { failed: 0, total: v }])) } });
  it('divides each command\'s delta by the checkouts and sums them; a command absent on one side counts from zero', () => {
    const got = commandsPerCheckout(
      status({ insert: 10, update: 100, getMore: 1000, replSetUpdatePosition: 50 }),
      status({ insert: 30, update: 300, getMore: 1400, replSetUpdatePosition: 250, commitTransaction: 100, hello: 999 }),
      100,
    );
    expect(got).toMatchObject({ insert: 0.2, update: 2, getMore: 4, replSetUpdatePosition: 2, commitTransaction: 1, find: 0 });
    expect(got['all']).toBe(9.2);
    expect(got).not.toHaveProperty('hello');
  });
});

describe("bench:checkout's oplog application per secondary (issue 31)", () => {
  const status = (secondary: boolean, batches: number, ops: number) => ({ repl: { secondary }, metrics: { repl: { apply: { batches: { num: batches, totalMillis: 0 }, ops } } } });
  it('counts batches and entries per checkout on the members that were secondaries at both readings', () => {
    const before = { a: applyCountersOf(status(true, 100, 1000)), b: applyCountersOf(status(false, 0, 0)), c: applyCountersOf(status(true, 50, 400)) };
    const after = { a: applyCountersOf(status(true, 400, 2600)), b: applyCountersOf(status(false, 0, 0)), c: applyCountersOf(status(false, 50, 400)) };
    expect(applyPerCheckout(before, after, 100)).toEqual({ a: { batches: 3, entries: 16 } });
  });
  it('reads the hosts of a connection string, with or without credentials and options', () => {
    expect(hostsOf('mongodb://127.0.0.1:27217,127.0.0.1:27218/?replicaSet=rs0')).toEqual(['127.0.0.1:27217', '127.0.0.1:27218']);
    expect(hostsOf('mongodb://u:p@h1:1/db')).toEqual(['h1:1']);
    expect(hostsOf('mongodb+srv://x')).toEqual([]);
  });
});
