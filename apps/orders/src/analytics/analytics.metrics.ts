import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RefreshOutcome } from './analytics.repository';

/** The analytics consumer on /metrics: events by outcome, facts applied, lag behind the order events. */
export class AnalyticsMetrics {
  readonly events: Counter<'type' | 'outcome'>;
  readonly facts: Counter<'fact'>;
  readonly lag: Histogram<'type'>;
  readonly consumerUp: Gauge;
  /** Records per group-commit chunk: what the fetch linger buys (one transaction per chunk). */
  readonly batchRecords: Histogram;

  constructor(registry: Registry) {
    this.events = new Counter({
      name: 'orders_analytics_events_total',
      help: 'Order events seen by the analytics consumer, by outcome (applied, unchanged, missing order, not an order)',
      labelNames: ['type', 'outcome'],
      registers: [registry],
    });
    this.facts = new Counter({
      name: 'orders_analytics_facts_applied_total',
      help: 'Sales facts applied to the read model (placed, sold, cancelled, sale_reversed)',
      labelNames: ['fact'],
      registers: [registry],
    });
    this.lag = new Histogram({
      name: 'orders_analytics_lag_seconds',
      help: 'Event time (occurred_at) to the read model updated',
      labelNames: ['type'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
      registers: [registry],
    });
    this.batchRecords = new Histogram({
      name: 'orders_analytics_batch_records',
      help: 'Order events handled per analytics chunk (one transaction each; group commit with fetch linger)',
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
      registers: [registry],
    });
    this.consumerUp = new Gauge({
      name: 'orders_analytics_consumer_up',
      help: '1 while the analytics consumer is joined to its group and consuming',
      registers: [registry],
    });
  }

  observe(type: string, outcome: RefreshOutcome, occurredAt: string, now = Date.now()): void {
    this.events.inc({ type, outcome: outcome.kind });
    if (outcome.kind === 'applied') for (const fact of outcome.facts) this.facts.inc({ fact });
    this.lag.observe({ type }, Math.max(0, (now - Date.parse(occurredAt)) / 1000));
  }
}
