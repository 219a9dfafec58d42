import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Projection lag = applied time − event time (envelope occurred_at), on /metrics of the projector. */
export class ProjectionMetrics {
  readonly lag: Histogram<'type'>;
  readonly lastLag: Gauge;
  readonly applied: Counter<'type'>;
  readonly skipped: Counter<'type' | 'reason'>;
  readonly coalesced: Counter;
  readonly seenLookups: Counter<'source'>;
  readonly seenInvalidations: Counter;
  readonly consumerUp: Gauge;
  readonly consumerCrashes: Counter<'restart'>;

  constructor(registry: Registry) {
    this.lag = new Histogram({
      name: 'catalog_projection_lag_seconds',
      help: 'Event time (occurred_at) to applied in Cassandra',
      labelNames: ['type'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    });
    this.lastLag = new Gauge({
      name: 'catalog_projection_last_lag_seconds',
      help: 'Lag of the last applied event',
      registers: [registry],
    });
    this.applied = new Counter({
      name: 'catalog_projection_events_total',
      help: 'Events applied to the read model',
      labelNames: ['type'],
      registers: [registry],
    });
    this.skipped = new Counter({
      name: 'catalog_projection_events_skipped_total',
      help: 'Events refused because the product already has that or a newer version (duplicate, stale, after-delete)',
      labelNames: ['type', 'reason'],
      registers: [registry],
    });
    this.coalesced = new Counter({
      name: 'catalog_projection_events_coalesced_total',
      help: 'Applied events whose rows were not written because a newer version of the product in the same batch was (also counted in catalog_projection_events_total)',
      registers: [registry],
    });
    this.seenLookups = new Counter({
      name: 'catalog_projection_seen_versions_total',
      help: 'Seen versions a batch looked up, by where they came from: memory (kept since the last rebalance) or a cassandra read of product_versions',
      labelNames: ['source'],
      registers: [registry],
    });
    this.seenInvalidations = new Counter({
      name: 'catalog_projection_seen_versions_dropped_total',
      help: 'Times the seen versions kept in memory were dropped: the consumer group rebalanced, or the consumer stopped or crashed',
      registers: [registry],
    });
    this.consumerUp = new Gauge({
      name: 'catalog_projector_consumer_up',
      help: '1 while the projector consumer is joined and consuming; 0 when starting, crashed, restarting or stopped',
      registers: [registry],
    });
    this.consumerCrashes = new Counter({
      name: 'catalog_projector_consumer_crashes_total',
      help: 'kafkajs consumer crashes, by whether kafkajs restarts the consumer',
      labelNames: ['restart'],
      registers: [registry],
    });
  }

  skip(type: string, reason: string): void {
    this.skipped.inc({ type, reason });
  }

  observe(type: string, occurredAt: string, now = Date.now()): number {
    const seconds = Math.max(0, (now - Date.parse(occurredAt)) / 1000);
    this.lag.observe({ type }, seconds);
    this.lastLag.set(seconds);
    this.applied.inc({ type });
    return seconds;
  }
}
