import { SeenVersion } from './read-model';

/**
 * Products whose seen version a projector member keeps in memory: about 250 bytes each, so at most
 * ~50 MB. A product that fell out is read from product_versions again, nothing else changes.
 */
export const SEEN_VERSIONS_KEPT = 200_000;

/**
 * The versions this member applied (or read from product_versions) for the products of the
 * partitions it owns (ADR 0034 "Seen versions in memory"): a batch then reads product_versions
 * only for products it has not met since the last rebalance.
 *
 * While this member owns a partition no one else writes its products, so what it remembers is
 * what product_versions holds — or older, never newer: only acknowledged writes and reads are
 * remembered, and never over a newer version. A version remembered older than the stored one
 * is harmless (the event is applied again and its writes are shadowed by the newer timestamps,
 * ADR 0032 §4). Once the group rebalances, another member may have applied this member's
 * products meanwhile, so everything is dropped (`invalidate`), and a batch that began before
 * remembers nothing of what it read or wrote (`epoch`).
 */
export class SeenVersions {
  private readonly kept = new Map<string, SeenVersion>();
  private generation = 0;

  constructor(private readonly capacity = SEEN_VERSIONS_KEPT) {}

  /** Taken when a batch begins, handed back to `remember`: a rebalance in between voids it. */
  get epoch(): number {
    return this.generation;
  }

  get size(): number {
    return this.kept.size;
  }

  /** The remembered versions of `productIds`, and the products to read from product_versions. */
  lookup(productIds: Iterable<string>): { known: Map<string, SeenVersion>; unknown: string[] } {
    const known = new Map<string, SeenVersion>();
    const unknown: string[] = [];
    for (const id of productIds) {
      const v = this.kept.get(id);
      if (v) known.set(id, v);
      else unknown.push(id);
    }
    return { known, unknown };
  }

  /**
   * Remembers versions read from or acknowledged by Cassandra during `epoch`; nothing if the group
   * rebalanced since, and never a version older than the one remembered. The oldest entries go
   * past the capacity.
   */
  remember(versions: Iterable<SeenVersion>, epoch: number): void {
    if (epoch !== this.generation || this.capacity === 0) return;
    for (const v of versions) {
      const had = this.kept.get(v.product_id);
      if (had && had.version >= v.version) continue;
      this.kept.delete(v.product_id);
      this.kept.set(v.product_id, v);
    }
    for (const id of this.kept.keys()) {
      if (this.kept.size <= this.capacity) break;
      this.kept.delete(id);
    }
  }

  /** A product applied outside a batch (one message at a time): read again next time. */
  forget(productId: string): void {
    this.kept.delete(productId);
  }

  /** The group rebalanced (or the consumer stopped): another member may have applied these products. */
  invalidate(): void {
    this.kept.clear();
    this.generation++;
  }
}
