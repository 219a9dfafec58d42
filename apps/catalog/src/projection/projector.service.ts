import { EnvelopeOf } from '@mw/contracts';
import { ProjectionMetrics } from './projection.metrics';
import { decide } from './read-model';
import { ReadModelRepository } from './read-model.repository';

/**
 * Applies one catalog.products.v1 event to the read model (idempotent, order-insensitive):
 * refuses an event not newer than what was applied for the product (ADR 0032 §6).
 */
export class ProjectorService {
  constructor(
    private readonly repo: ReadModelRepository,
    private readonly buckets: number,
    private readonly metrics?: ProjectionMetrics,
  ) {}

  async apply(e: EnvelopeOf<'catalog.products.v1'>): Promise<void> {
    const decision = decide(e, this.buckets, await this.repo.seen(e.payload.product_id));
    if (!decision.apply) {
      this.metrics?.skip(e.type, decision.reason);
      return;
    }
    await this.repo.apply(decision.plan);
    this.metrics?.observe(e.type, e.occurred_at);
  }
}
