import { Rng } from './rng';

/**
 * The fault plan of a chaos run (pure): which faults, in which order, at which second of the
 * storm. The same seed and profile always give the same plan, so a failing run can be replayed.
 */
export type Fault =
  /** SIGKILL one service process, start it again after `downMs`. */
  | { readonly kind: 'kill-process'; readonly target: string; readonly downMs: number }
  /** SIGSTOP one service process for `pausedMs` (longer than the Kafka session timeout), then SIGCONT. */
  | { readonly kind: 'pause-process'; readonly target: string; readonly pausedMs: number }
  /** SIGKILL the Kafka broker, start it again after `downMs`. */
  | { readonly kind: 'kill-kafka'; readonly downMs: number }
  /** SIGKILL Cassandra, start it again after `downMs`. */
  | { readonly kind: 'kill-cassandra'; readonly downMs: number }
  /** SIGKILL the MongoDB primary; the supervisor restarts it and an election follows. */
  | { readonly kind: 'kill-mongodb-primary' }
  /** Publish `count` unparseable messages onto a topic: each must end in its DLQ (the explained entries). */
  | { readonly kind: 'poison'; readonly topic: 'commands' | 'checkout'; readonly count: number };

/**
 * Kafka consumer session timeout of the services in a chaos run (KAFKA_SESSION_TIMEOUT_MS): short, so a
 * killed member leaves its group in seconds; a pause lasts longer than this, so the group rebalances.
 */
export const SESSION_TIMEOUT_MS = 10_000;

export interface PlannedFault {
  /** Seconds after the storm started. */
  readonly at: number;
  readonly fault: Fault;
}

export interface Profile {
  readonly name: 'short' | 'long';
  /** Seconds of checkout storm (faults happen inside it). */
  readonly stormSeconds: number;
  /** Checkouts in flight. */
  readonly concurrency: number;
  /** How many times each kind of fault is injected. */
  readonly rounds: number;
  /** SIGSTOP length: beyond the consumers' session timeout (SESSION_TIMEOUT_MS) so the group rebalances. */
  readonly pauseMs: number;
}

export const PROFILES: Readonly<Record<Profile['name'], Profile>> = {
  short: { name: 'short', stormSeconds: 120, concurrency: 6, rounds: 1, pauseMs: 2 * SESSION_TIMEOUT_MS },
  long: { name: 'long', stormSeconds: 660, concurrency: 8, rounds: 3, pauseMs: 3 * SESSION_TIMEOUT_MS },
};

/** Service processes the plan may kill or pause (ids as the stack names its instances). */
export interface Targets {
  /** Instance ids per service, e.g. { inventory: ['inventory', 'inventory-2'] }. */
  readonly processes: Readonly<Record<string, readonly string[]>>;
  /** Processes that may be SIGSTOPped (services with a second instance, so the group rebalances onto it). */
  readonly pausable: readonly string[];
}

/**
 * One process of every service is killed per round, Kafka, Cassandra and the MongoDB primary `rounds` times
 * each, one process paused per round, poison once per round. The serial faults are spread evenly over
 * the storm (leaving its first and last 10 % quiet) in a seeded order with jitter; pauses run on
 * their own track so they overlap other faults.
 */
export function planFaults(seed: number, profile: Profile, targets: Targets): PlannedFault[] {
  const rng = new Rng(seed);
  const serial: Fault[] = [];
  const pauses: Fault[] = [];
  for (let round = 0; round < profile.rounds; round++) {
    // one process of every service per round (which instance: seeded)
    for (const ids of Object.values(targets.processes)) serial.push({ kind: 'kill-process', target: rng.pick(ids), downMs: rng.int(500, 3000) });
    serial.push({ kind: 'kill-kafka', downMs: rng.int(2000, 6000) });
    serial.push({ kind: 'kill-cassandra', downMs: rng.int(2000, 6000) });
    serial.push({ kind: 'kill-mongodb-primary' });
    serial.push({ kind: 'poison', topic: rng.pick(['commands', 'checkout'] as const), count: rng.int(1, 3) });
    if (targets.pausable.length > 0) pauses.push({ kind: 'pause-process', target: rng.pick(targets.pausable), pausedMs: profile.pauseMs });
  }
  const ordered = rng.shuffle(serial);
  const start = profile.stormSeconds * 0.1;
  const span = profile.stormSeconds * 0.8;
  const slot = span / Math.max(1, ordered.length);
  const planned: PlannedFault[] = ordered.map((fault, i) => ({ at: round1(start + i * slot + rng.next() * slot * 0.5), fault }));
  const pauseSlot = (profile.stormSeconds * 0.6) / Math.max(1, pauses.length);
  pauses.forEach((fault, i) => planned.push({ at: round1(profile.stormSeconds * 0.15 + i * pauseSlot + rng.next() * pauseSlot * 0.3), fault }));
  return planned.sort((a, b) => a.at - b.at);
}

export function describeFault(f: Fault): string {
  switch (f.kind) {
    case 'kill-process':
      return `SIGKILL ${f.target} (down ${f.downMs} ms)`;
    case 'pause-process':
      return `SIGSTOP ${f.target} for ${f.pausedMs / 1000} s`;
    case 'kill-kafka':
      return `SIGKILL Kafka broker (down ${f.downMs} ms)`;
    case 'kill-cassandra':
      return `SIGKILL Cassandra (down ${f.downMs} ms)`;
    case 'kill-mongodb-primary':
      return 'SIGKILL MongoDB primary (election)';
    case 'poison':
      return `${f.count} unparseable message(s) on ${f.topic}`;
  }
}

const round1 = (n: number): number => Math.round(n * 10) / 10;
