import { Counter, Gauge, type Registry } from 'prom-client';
import type { OrdersRepository } from '../orders/orders.repository';
import { SWEEP_IDLE_FACTOR } from './deadline-sweeper';

/**
 * A deadline the sweeper has had this long to fire is overdue: its idle bound (SWEEP_IDLE_FACTOR
 * intervals — a deadline another instance set may wait that long) plus two passes, at least 30 s.
 */
export const overdueGraceMs = (sweepIntervalMs: number): number => Math.max(30_000, (SWEEP_IDLE_FACTOR + 2) * sweepIntervalMs);

/**
 * `orders_saga_overdue{state}`: orders still waiting in a saga state whose persisted deadline passed
 * more than the grace ago — the sweeper should have moved them on (alert OrdersPastSagaDeadline).
 * One indexed aggregation per scrape; labels are the saga's few states.
 */
export class SagaOverdueMetrics {
  constructor(registry: Registry, repo: Pick<OrdersRepository, 'overdueByState'>, graceMs: number) {
    new Gauge({
      name: 'orders_saga_overdue',
      help: 'Orders whose saga deadline passed more than the sweeper grace ago, by saga state',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        const rows = await repo.overdueByState(new Date(Date.now() - graceMs));
        this.reset();
        for (const r of rows) this.set({ state: r.state }, r.count);
      },
    });
  }
}

/**
 * `orders_created_total{zone}`: orders created per geozone. The orders shard key is {zone, user_id}
 * and zone sharding gives each zone its own range (ADR 0010), so a zone's share of new orders is its
 * shard key range's share of the writes — alert HotZone (seed 002's hot-shard watch).
 */
export function ordersCreatedCounter(registry: Registry): Counter<'zone'> {
  return new Counter({
    name: 'orders_created_total',
    help: 'Orders created, by geozone (the orders shard key range)',
    labelNames: ['zone'],
    registers: [registry],
  });
}
