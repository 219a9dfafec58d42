/**
 * The operation counters of `bench:checkout` and their arithmetic (issue 22 item 13): a level's
 * counts are whole-database deltas, which include what the idle services' pollers, sweepers and
 * relays do meanwhile; `minusIdle` takes that out (the idle rate measured in a quiet window before
 * the level × the level's seconds) so "operations per checkout" counts the checkouts' own work.
 */
export interface Counters {
  mongo: Record<string, number>;
  cassandra: { writes: number; reads: number };
  kafka: Record<string, number>;
}

export const zeroCounters: Counters = { mongo: {}, cassandra: { writes: 0, reads: 0 }, kafka: {} };

const round = (n: number, d: number) => Number(n.toFixed(d));
const keys = (...maps: Record<string, number>[]) => [...new Set(maps.flatMap((m) => Object.keys(m)))];

/** (b − a) × scale: `scale` 1/n gives per checkout, 1/seconds per second. `topics`: the Kafka keys kept. */
export function diffCounters(a: Counters, b: Counters, topics: readonly string[], scale = 1): Counters {
  return {
    mongo: Object.fromEntries(
      keys(a.mongo, b.mongo).map((k) => [k, ((b.mongo[k] ?? 0) - (a.mongo[k] ?? 0)) * scale]),
    ),
    cassandra: {
      writes: (b.cassandra.writes - a.cassandra.writes) * scale,
      reads: (b.cassandra.reads - a.cassandra.reads) * scale,
    },
    kafka: Object.fromEntries(topics.map((t) => [t, ((b.kafka[t] ?? 0) - (a.kafka[t] ?? 0)) * scale])),
  };
}

/** A level's counts minus what the idle services would have done in the same time (idle rate × seconds). */
export function minusIdle(level: Counters, idlePerS: Counters, seconds: number): Counters {
  return {
    mongo: Object.fromEntries(
      Object.keys(level.mongo).map((k) => [k, (level.mongo[k] ?? 0) - (idlePerS.mongo[k] ?? 0) * seconds]),
    ),
    cassandra: {
      writes: level.cassandra.writes - idlePerS.cassandra.writes * seconds,
      reads: level.cassandra.reads - idlePerS.cassandra.reads * seconds,
    },
    kafka: Object.fromEntries(
      Object.keys(level.kafka).map((t) => [t, (level.kafka[t] ?? 0) - (idlePerS.kafka[t] ?? 0) * seconds]),
    ),
  };
}

export function plusCounters(a: Counters, b: Counters): Counters {
  const sum = (x: Record<string, number>, y: Record<string, number>) =>
    Object.fromEntries(keys(x, y).map((k) => [k, (x[k] ?? 0) + (y[k] ?? 0)]));
  return {
    mongo: sum(a.mongo, b.mongo),
    cassandra: {
      writes: a.cassandra.writes + b.cassandra.writes,
      reads: a.cassandra.reads + b.cassandra.reads,
    },
    kafka: sum(a.kafka, b.kafka),
  };
}

export function roundCounters(c: Counters, d = 2): Counters {
  return {
    mongo: Object.fromEntries(Object.entries(c.mongo).map(([k, v]) => [k, round(v, d)])),
    cassandra: { writes: round(c.cassandra.writes, d), reads: round(c.cassandra.reads, d) },
    kafka: Object.fromEntries(Object.entries(c.kafka).map(([k, v]) => [k, round(v, d)])),
  };
}

/**
 * Per checkout over several levels: each level's delta minus its own idle baseline, summed, divided
 * by the checkouts of every level — not the last level's delta alone.
 */
export interface LevelCounts {
  readonly before: Counters;
  readonly after: Counters;
  /** The idle rate measured in the quiet window before the level. */
  readonly idlePerS: Counters;
  readonly seconds: number;
  readonly checkouts: number;
}

export function perCheckout(levels: readonly LevelCounts[], topics: readonly string[]): Counters {
  let net = zeroCounters;
  let checkouts = 0;
  for (const l of levels) {
    net = plusCounters(net, minusIdle(diffCounters(l.before, l.after, topics), l.idlePerS, l.seconds));
    checkouts += l.checkouts;
  }
  return roundCounters(diffCounters(zeroCounters, net, topics, 1 / Math.max(1, checkouts)));
}
