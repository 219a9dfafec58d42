import { EnvelopeOf } from '@mw/contracts';
import { ProjectionMetrics } from './projection.metrics';
import { planFor } from './read-model';
import { ReadModelRepository } from './read-model.repository';

/** Applies one catalog.products.v1 event to the read model (idempotent, order-insensitive). */
export class ProjectorService {
  constructor(
    private readonly repo: ReadModelRepository,
    private readonly buckets: number,
    private readonly metrics?: ProjectionMetrics,
  ) {}

  async apply(e: EnvelopeOf<'catalog.products.v1'>): Promise<void> {
    await this.repo.apply(planFor(e, this.buckets));
    this.metrics?.observe(e.type, e.occurred_at);
  }
}
