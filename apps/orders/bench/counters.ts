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

/** The commands whose count says how many round trips a checkout costs the primary: the clients' reads and writes, and replication's getMore and replSetUpdatePosition. */
export const PRIMARY_COMMANDS = ['insert', 'update', 'delete', 'find', 'getMore', 'findAndModify', 'aggregate', 'commitTransaction', 'abortTransaction', 'replSetUpdatePosition'] as const;

/**
 * Commands the primary served between two `serverStatus` answers (`metrics.commands.<name>.total`),
 * per checkout: every command is one round trip, so this counts what the write groups' fill does to
 * the replica set (a getMore is mostly a secondary tailing the oplog, a replSetUpdatePosition its
 * acknowledgement). Whole server: the idle services' polls are included.
 */
export function commandsPerCheckout(before: Record<string, unknown>, after: Record<string, unknown>, checkouts: number): Record<string, number> {
  const total = (status: Record<string, unknown>, name: string): number => {
    const commands = (status['metrics'] as { commands?: Record<string, { total?: unknown }> } | undefined)?.commands;
    return Number(commands?.[name]?.total ?? 0);
  };
  const n = Math.max(1, checkouts);
  const out: Record<string, number> = {};
  let all = 0;
  for (const name of PRIMARY_COMMANDS) {
    const d = (total(after, name) - total(before, name)) / n;
    all += d;
    out[name] = round(d, 2);
  }
  out['all'] = round(all, 2);
  return out;
}

/** A member's oplog application so far (`serverStatus().metrics.repl.apply`); zero on a primary that never applied as a secondary. */
export interface ApplyCounters {
  readonly secondary: boolean;
  readonly batches: number;
  readonly ops: number;
}

export function applyCountersOf(status: Record<string, unknown>): ApplyCounters {
  const repl = status['repl'] as { secondary?: unknown } | undefined;
  const apply = (status['metrics'] as { repl?: { apply?: { batches?: { num?: unknown }; ops?: unknown } } } | undefined)?.repl?.apply;
  return { secondary: repl?.secondary === true, batches: Number(apply?.batches?.num ?? 0), ops: Number(apply?.ops ?? 0) };
}

/**
 * Per secondary, the batches it applied and the entries in them between two readings, per checkout:
 * each batch is one fetch, one apply, one journal write and one position report, so this counts
 * the replication work the write groups cause, where the primary's getMore count cannot (exhaust cursors).
 */
export function applyPerCheckout(before: Record<string, ApplyCounters>, after: Record<string, ApplyCounters>, checkouts: number): Record<string, { batches: number; entries: number }> {
  const n = Math.max(1, checkouts);
  const out: Record<string, { batches: number; entries: number }> = {};
  for (const [host, b] of Object.entries(after)) {
    const a = before[host];
    if (!a || !b.secondary || !a.secondary) continue;
    out[host] = { batches: round((b.batches - a.batches) / n, 2), entries: round((b.ops - a.ops) / n, 2) };
  }
  return out;
}

/** The host:port list of a MongoDB connection string (`mongodb://h1:p1,h2:p2/?…`, credentials ignored). */
export function hostsOf(url: string): string[] {
  const m = /^mongodb:\/\/(?:[^@/]*@)?([^/?]+)/.exec(url);
  return m ? m[1]!.split(',').filter((h) => h.length > 0) : [];
}
