import { isPartition, planFaults, PROFILES, SESSION_TIMEOUT_MS, trackOf } from './plan';

const targets = {
  processes: { inventory: ['inventory', 'inventory-2'], orders: ['orders', 'orders-2'], carts: ['carts', 'carts-2'], catalog: ['catalog'], 'catalog-projector': ['catalog-projector'] },
  pausable: ['inventory-2', 'orders-2', 'carts-2'],
};

describe('chaos fault plan', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(planFaults(7, PROFILES.short, targets)).toEqual(planFaults(7, PROFILES.short, targets));
    expect(planFaults(7, PROFILES.short, targets)).not.toEqual(planFaults(8, PROFILES.short, targets));
  });

  it.each([PROFILES.short, PROFILES.long])('kills every service, Kafka, Cassandra and the MongoDB primary, and pauses a process, each round ($name)', (profile) => {
    const plan = planFaults(42, profile, targets);
    const kinds = plan.map((p) => p.fault.kind);
    const count = (k: string): number => kinds.filter((x) => x === k).length;
    expect(count('kill-process')).toBe(5 * profile.rounds);
    for (const k of ['kill-kafka', 'kill-cassandra', 'kill-mongodb-primary', 'pause-process', 'poison']) expect(count(k)).toBe(profile.rounds);
    const killed = new Set(plan.flatMap((p) => (p.fault.kind === 'kill-process' ? [p.fault.target.replace(/-2$/, '')] : [])));
    expect([...killed].sort()).toEqual(Object.keys(targets.processes).sort());
    for (const p of plan) {
      expect(p.at).toBeGreaterThan(0);
      expect(p.at).toBeLessThan(profile.stormSeconds);
      if (p.fault.kind === 'pause-process') expect(p.fault.pausedMs).toBeGreaterThan(SESSION_TIMEOUT_MS); // the group rebalances
    }
    expect(plan.map((p) => p.at)).toEqual([...plan.map((p) => p.at)].sort((a, b) => a - b));
  });

  const cluster = {
    processes: {
      inventory: ['inventory', 'inventory-2'],
      orders: ['orders', 'orders-2'],
      carts: ['carts', 'carts-2'],
      catalog: ['catalog', 'catalog-2'],
      'catalog-projector': ['catalog-projector', 'catalog-projector-2'],
    },
    pausable: [],
  };

  it.each([
    { name: 'partitions', profile: PROFILES.partitions, partitions: 24 },
    { name: 'partitions-short', profile: PROFILES['partitions-short'], partitions: 8 },
  ])('partitions the primary, the leader broker, a Cassandra node and an instance of every service from the brokers each round, mixed with the SIGKILLs ($name)', ({ profile, partitions }) => {
    expect(profile.topology).toBe('cluster');
    const plan = planFaults(42, profile, cluster);
    const count = (k: string): number => plan.filter((p) => p.fault.kind === k).length;
    expect(plan.filter((p) => isPartition(p.fault))).toHaveLength(partitions);
    for (const k of ['partition-mongodb-primary', 'partition-kafka-leader', 'partition-cassandra-node', 'kill-kafka', 'kill-cassandra', 'kill-mongodb-primary', 'poison']) expect(count(k)).toBe(profile.rounds);
    expect(count('isolate-service')).toBe(5 * profile.rounds);
    expect(count('kill-process')).toBe(5 * profile.rounds);
    const isolated = new Set(plan.flatMap((p) => (p.fault.kind === 'isolate-service' ? [p.fault.target.replace(/-2$/, '')] : [])));
    expect([...isolated].sort()).toEqual(Object.keys(cluster.processes).sort());
    for (const p of plan) {
      expect(p.at).toBeGreaterThan(0);
      expect(p.at).toBeLessThan(profile.stormSeconds);
      // long enough for an election, a broker's fencing and a consumer's session to expire
      if ('holdMs' in p.fault) expect(p.fault.holdMs).toBeGreaterThan(SESSION_TIMEOUT_MS);
      expect(trackOf(p.fault, 'cluster')).toBe(p.fault.kind === 'isolate-service' || p.fault.kind === 'kill-process' ? 'services' : 'servers');
    }
    expect(count('pause-process')).toBe(0);
  });

  it('has ten minutes of storm and at least twenty partitions in the full profile', () => {
    expect(PROFILES.partitions.stormSeconds).toBeGreaterThanOrEqual(600);
    expect(planFaults(1, PROFILES.partitions, cluster).filter((p) => isPartition(p.fault)).length).toBeGreaterThanOrEqual(20);
  });
});
