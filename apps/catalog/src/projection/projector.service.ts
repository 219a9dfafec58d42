import { EnvelopeOf } from '@mw/contracts';
import { ProjectionMetrics } from './projection.metrics';
import { decide, decideBatch } from './read-model';
import { ReadModelRepository } from './read-model.repository';

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
  ) {}

  async apply(e: ProductEnvelope): Promise<void> {
    const decision = decide(e, this.periodDays, await this.repo.seen(e.payload.product_id));
    if (!decision.apply) {
      this.metrics?.skip(e.type, decision.reason);
      return;
    }
    await this.repo.apply(decision.plan);
    this.metrics?.observe(e.type, e.occurred_at);
  }

  /**
   * A consumed batch at once (ADR 0034 "Batches"): one read of each product's seen version, the
   * same decisions as one event at a time (decideBatch), each product's versions coalesced into
   * one plan (coalesce), the rows grouped per Cassandra partition, then the seen versions.
   * Resolves only once Cassandra acknowledged every write.
   */
  async applyAll(events: readonly ProductEnvelope[]): Promise<void> {
    if (events.length === 0) return;
    const seen = await this.repo.seenAll([...new Set(events.map((e) => e.payload.product_id))]);
    const batch = decideBatch(events, this.periodDays, seen);
    if (batch.writes.length > 0) await this.repo.applyAll(batch.writes, batch.seen);
    const now = Date.now();
    for (const s of batch.skipped) this.metrics?.skip(s.event.type, s.reason);
    // an event coalesced into a newer version of its product is applied when that version is
    for (const e of batch.applied) this.metrics?.observe(e.type, e.occurred_at, now);
    this.metrics?.coalesced.inc(batch.applied.length - batch.writes.length);
  }
}
