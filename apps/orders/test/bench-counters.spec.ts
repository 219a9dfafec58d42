import { type Counters, perCheckout } from '../bench/counters';

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
