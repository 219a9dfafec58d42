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
  /** SIGKILL Cassandra (on the cluster: node `node`), start it again after `downMs`. */
  | { readonly kind: 'kill-cassandra'; readonly downMs: number; readonly node?: number }
  /** SIGKILL the MongoDB primary; the supervisor restarts it and an election follows. */
  | { readonly kind: 'kill-mongodb-primary' }
  /** Publish `count` unparseable messages onto a topic: each must end in its DLQ (the explained entries). */
  | { readonly kind: 'poison'; readonly topic: 'commands' | 'checkout'; readonly count: number }
  // Partitions (cluster topology, ADR 0062): the cut-off side keeps running; healed after `holdMs`.
  /** Split the MongoDB primary from the other two members (clients still reach it): it must step down. */
  | { readonly kind: 'partition-mongodb-primary'; readonly holdMs: number }
  /** Split the broker leading the checkout topic's partition 0 from the other two brokers (clients still reach it). */
  | { readonly kind: 'partition-kafka-leader'; readonly holdMs: number }
  /**
   * One Cassandra node cut off: from its two peers only (`peers`: it still coordinates clients'
   * requests it cannot get a quorum for) or from everybody (`link`).
   */
  | { readonly kind: 'partition-cassandra-node'; readonly node: number; readonly mode: 'peers' | 'link'; readonly holdMs: number }
  /** One service instance split from the three brokers (it still reaches the databases and serves HTTP): its partitions move. */
  | { readonly kind: 'isolate-service'; readonly target: string; readonly holdMs: number };

export type FaultKind = Fault['kind'];
export const PARTITION_KINDS: readonly FaultKind[] = [
  'partition-mongodb-primary',
  'partition-kafka-leader',
  'partition-cassandra-node',
  'isolate-service',
];
export const isPartition = (f: Fault): boolean => PARTITION_KINDS.includes(f.kind);

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
  readonly name: 'short' | 'long' | 'partitions' | 'partitions-short';
  /** `single`: one broker, one Cassandra node, a replica set on loopback; `cluster`: the cluster topology of ADR 0062, services in namespaces. */
  readonly topology: 'single' | 'cluster';
  /** Seconds of checkout storm (faults happen inside it). */
  readonly stormSeconds: number;
  /** Checkouts in flight. */
  readonly concurrency: number;
  /** How many times each kind of fault is injected. */
  readonly rounds: number;
  /** SIGSTOP length: beyond the consumers' session timeout (SESSION_TIMEOUT_MS) so the group rebalances. */
  readonly pauseMs: number;
}

/** How long a partition holds: past the election timeout (5 s), Kafka's broker and consumer sessions (9–10 s) and Cassandra's failure detector. */
export const PARTITION_HOLD_MS: readonly [number, number] = [2 * SESSION_TIMEOUT_MS, 3 * SESSION_TIMEOUT_MS];

export const PROFILES: Readonly<Record<Profile['name'], Profile>> = {
  short: { name: 'short', topology: 'single', stormSeconds: 120, concurrency: 6, rounds: 1, pauseMs: 2 * SESSION_TIMEOUT_MS },
  long: { name: 'long', topology: 'single', stormSeconds: 660, concurrency: 8, rounds: 3, pauseMs: 3 * SESSION_TIMEOUT_MS },
  partitions: { name: 'partitions', topology: 'cluster', stormSeconds: 660, concurrency: 6, rounds: 3, pauseMs: 0 },
  'partitions-short': { name: 'partitions-short', topology: 'cluster', stormSeconds: 240, concurrency: 6, rounds: 1, pauseMs: 0 },
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
  if (profile.topology === 'cluster') return planPartitions(seed, profile, targets);
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

/**
 * The cluster topology's plan: two tracks, each serial and spread over the storm like the single
 * node's. The servers' track, per round: the MongoDB primary, the leader broker and one Cassandra
 * node partitioned, a broker, a Cassandra node and the primary SIGKILLed, poison. The services'
 * track, per round: one instance of every service split from the brokers and one process of every
 * service SIGKILLed. Faults on one track never overlap; the two tracks do.
 */
function planPartitions(seed: number, profile: Profile, targets: Targets): PlannedFault[] {
  const rng = new Rng(seed);
  const servers: Fault[] = [];
  const services: Fault[] = [];
  const hold = (): number => rng.int(PARTITION_HOLD_MS[0], PARTITION_HOLD_MS[1]);
  for (let round = 0; round < profile.rounds; round++) {
    servers.push({ kind: 'partition-mongodb-primary', holdMs: hold() });
    servers.push({ kind: 'partition-kafka-leader', holdMs: hold() });
    // the first round cuts a node from its peers only, the next from everybody, and so on
    servers.push({ kind: 'partition-cassandra-node', node: rng.int(1, 3), mode: round % 2 === 0 ? 'peers' : 'link', holdMs: hold() });
    servers.push({ kind: 'kill-kafka', downMs: rng.int(2000, 6000) });
    servers.push({ kind: 'kill-cassandra', downMs: rng.int(2000, 6000), node: rng.int(1, 3) });
    servers.push({ kind: 'kill-mongodb-primary' });
    servers.push({ kind: 'poison', topic: rng.pick(['commands', 'checkout'] as const), count: rng.int(1, 3) });
    for (const ids of Object.values(targets.processes)) {
      services.push({ kind: 'isolate-service', target: rng.pick(ids), holdMs: hold() });
      services.push({ kind: 'kill-process', target: rng.pick(ids), downMs: rng.int(500, 3000) });
    }
  }
  const spread = (faults: readonly Fault[], from: number, span: number): PlannedFault[] => {
    const slot = span / Math.max(1, faults.length);
    return faults.map((fault, i) => ({ at: round1(from + i * slot + rng.next() * slot * 0.3), fault }));
  };
  return [
    ...spread(rng.shuffle(servers), profile.stormSeconds * 0.05, profile.stormSeconds * 0.85),
    ...spread(rng.shuffle(services), profile.stormSeconds * 0.1, profile.stormSeconds * 0.8),
  ].sort((a, b) => a.at - b.at);
}

/** Which track a fault runs on (faults of one track run one after another; tracks overlap). */
export function trackOf(f: Fault, topology: Profile['topology']): 'servers' | 'services' | 'pauses' {
  if (f.kind === 'pause-process') return 'pauses';
  if (topology === 'cluster' && (f.kind === 'isolate-service' || f.kind === 'kill-process')) return 'services';
  return 'servers';
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
      return `SIGKILL Cassandra${f.node ? ` node ${f.node}` : ''} (down ${f.downMs} ms)`;
    case 'kill-mongodb-primary':
      return 'SIGKILL MongoDB primary (election)';
    case 'poison':
      return `${f.count} unparseable message(s) on ${f.topic}`;
    case 'partition-mongodb-primary':
      return `partition: MongoDB primary split from the other members for ${f.holdMs / 1000} s`;
    case 'partition-kafka-leader':
      return `partition: leader broker split from the other brokers for ${f.holdMs / 1000} s`;
    case 'partition-cassandra-node':
      return `partition: cassandra-${f.node} cut off from ${f.mode === 'peers' ? 'its peers' : 'everybody'} for ${f.holdMs / 1000} s`;
    case 'isolate-service':
      return `partition: ${f.target} split from the brokers for ${f.holdMs / 1000} s`;
  }
}

const round1 = (n: number): number => Math.round(n * 10) / 10;
