import { EnvelopeOf } from '@mw/contracts';
import { ProjectionMetrics } from './projection.metrics';
import { decide, decideBatch } from './read-model';
import { ReadModelRepository } from './read-model.repository';
import { SeenVersions } from './seen-versions';

type ProductEnvelope = EnvelopeOf<'catalog.products.v1'>;

/**
 * Applies catalog.products.v1 events to the read model (idempotent, order-insensitive): refuses
 * an event not newer than what was applied for the product (ADR 0032 §6).
 */
export class ProjectorService {
  constructor(
    private readonly repo: ReadModelRepository,
    private readonly periodDays: number,
    private readonly metrics?: ProjectionMetrics,
    private readonly versions = new SeenVersions(),
  ) {}

  /** One message (the runner's path): decided against product_versions itself, and forgotten in memory. */
  async apply(e: ProductEnvelope): Promise<void> {
    this.versions.forget(e.payload.product_id);
    const decision = decide(e, this.periodDays, await this.repo.seen(e.payload.product_id));
    if (!decision.apply) {
      this.metrics?.skip(e.type, decision.reason);
      return;
    }
    await this.repo.apply(decision.plan);
    this.metrics?.observe(e.type, e.occurred_at);
  }

  /**
   * The consumer group rebalanced, or the consumer stopped or crashed: another member may apply
   * (or have applied) this member's products, so the versions kept in memory are dropped.
   */
  rebalanced(): void {
    this.versions.invalidate();
    this.metrics?.seenInvalidations.inc();
  }

  /**
   * A consumed batch at once (ADR 0034 "Batches"): each product's seen version from memory, or
   * one read for the products not met since the last rebalance (SeenVersions), the same
   * decisions as one event at a time (decideBatch), each product's versions coalesced into one
   * plan, the rows grouped per Cassandra partition, then the seen versions. Resolves only once
   * Cassandra acknowledged every write; only then are the new versions remembered.
   */
  async applyAll(events: readonly ProductEnvelope[]): Promise<void> {
    if (events.length === 0) return;
    const epoch = this.versions.epoch;
    const ids = new Set(events.map((e) => e.payload.product_id));
    const { known: seen, unknown } = this.versions.lookup(ids);
    this.metrics?.seenLookups.inc({ source: 'memory' }, ids.size - unknown.length);
    this.metrics?.seenLookups.inc({ source: 'cassandra' }, unknown.length);
    if (unknown.length > 0) {
      const read = await this.repo.seenAll(unknown);
      this.versions.remember(read.values(), epoch);
      for (const [id, v] of read) seen.set(id, v);
    }
    const batch = decideBatch(events, this.periodDays, seen);
    if (batch.writes.length > 0) await this.repo.applyAll(batch.writes, batch.seen);
    this.versions.remember(batch.seen, epoch);
    const now = Date.now();
    for (const s of batch.skipped) this.metrics?.skip(s.event.type, s.reason);
    // an event coalesced into a newer version of its product is applied when that version is
    for (const e of batch.applied) this.metrics?.observe(e.type, e.occurred_at, now);
    this.metrics?.coalesced.inc(batch.applied.length - batch.writes.length);
  }
}
