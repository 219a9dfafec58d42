import { hostSpeed } from './host-speed';

describe('hostSpeed', () => {
  it('times a walk that misses the caches and a loop that does not', () => {
    hostSpeed(); // builds the cycle
    const s = hostSpeed();
    expect(Number.isFinite(s.memory_ns_per_load) && Number.isFinite(s.compute_ns_per_round)).toBe(true);
    expect(s.compute_ns_per_round).toBeGreaterThan(0);
    // a dependent load from a 64 MiB random cycle waits on memory: tens of ns at least, where a round in
    // registers takes one or two (a cycle that stayed in cache — a broken shuffle — would fail this)
    expect(s.memory_ns_per_load).toBeGreaterThan(10 * s.compute_ns_per_round);
  });
});
