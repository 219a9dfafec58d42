import { planFaults, PROFILES, SESSION_TIMEOUT_MS } from './plan';

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
});
