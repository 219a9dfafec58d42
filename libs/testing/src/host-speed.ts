/**
 * A fixed piece of work timed on this machine, to tell a slower host from a slower system between
 * benchmark runs (ADR 0015 §12): the same code costs a different CPU time per unit when the host's
 * caches and memory are shared with busier neighbours, which the guest does not see as steal.
 * Two probes, both single-threaded in the calling process:
 * - `memory`: a dependent walk over a 64 MiB cycle (each load waits for the one before), so it is
 *   bound by cache misses — what the servers' hash tables, B-trees and buffers pay;
 * - `compute`: integer rounds in registers, bound by the core alone.
 */
const CYCLE_ENTRIES = 16 * 1024 * 1024; // 64 MiB of Int32
const WALK_STEPS = 500_000;
const COMPUTE_ROUNDS = 5_000_000;

let cycle: Int32Array | undefined;
/** Where the probes' results go, so that their loops are not dead code. */
let _sink = 0;

/** One random cycle through every entry (Sattolo's shuffle), built once per process. */
function cycleOf(): Int32Array {
  if (cycle) return cycle;
  const c = new Int32Array(CYCLE_ENTRIES);
  for (let i = 0; i < c.length; i++) c[i] = i;
  let seed = 0x9e3779b9;
  for (let i = c.length - 1; i > 0; i--) {
    seed = (seed * 1664525 + 1013904223) >>> 0; // exact: the product stays below 2^53
    const j = seed % i;
    const t = c[i]!;
    c[i] = c[j]!;
    c[j] = t;
  }
  cycle = c;
  return c;
}

export interface HostSpeed {
  /** CPU nanoseconds per dependent load of the memory walk. */
  readonly memory_ns_per_load: number;
  /** CPU nanoseconds per integer round. */
  readonly compute_ns_per_round: number;
}

const cpuNs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};

/** Runs both probes once (~100–150 ms of CPU; the first call also builds the cycle, ~0.5 s). */
export function hostSpeed(): HostSpeed {
  const c = cycleOf();
  let at = 0;
  const m0 = cpuNs();
  for (let i = 0; i < WALK_STEPS; i++) at = c[at]!;
  const m1 = cpuNs();
  let x = at | 1;
  // plain arithmetic (no global lookups: under a test runner's sandbox `Math.imul` is a slow property read)
  for (let i = 0; i < COMPUTE_ROUNDS; i++) x = ((x ^ (x >>> 15)) * 2654435 + i) | 0;
  const m2 = cpuNs();
  _sink ^= x ^ at;
  return {
    memory_ns_per_load: Math.round(((m1 - m0) / WALK_STEPS) * 100) / 100,
    compute_ns_per_round: Math.round(((m2 - m1) / COMPUTE_ROUNDS) * 1000) / 1000,
  };
}
