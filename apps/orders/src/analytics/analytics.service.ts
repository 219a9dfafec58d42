import type { Logger } from 'pino';
import type { EnvelopeOf } from '@mw/contracts';
import { AppError, assertUnreachable } from '@mw/platform';
import type { AnalyticsMetrics } from './analytics.metrics';
import type { AnalyticsRepository, RefreshOutcome } from './analytics.repository';
import { periodsCovering } from './date-range';
import {
  basketFigures,
  BasketFigures,
  cancellationFigures,
  CancellationFigures,
  CategoryTop,
  RankBy,
  salesFigures,
  SalesFigures,
  topProducts,
} from './figures';

export interface RangeQuery {
  /** Inclusive UTC days, already checked: from ≤ to, at most MAX_RANGE_DAYS apart. */
  readonly from: string;
  readonly to: string;
  /** One zone, or every served zone. */
  readonly zone?: string | undefined;
}

/** The figures the analytics API answers with, from the read model only (never from orders). */
export class AnalyticsQueries {
  constructor(
    private readonly repo: AnalyticsRepository,
    private readonly servedZones: readonly string[],
  ) {}

  async sales(q: RangeQuery & { category_id?: string | undefined }): Promise<SalesFigures> {
    const zones = this.zonesOf(q.zone);
    const category = q.category_id?.toLowerCase() ?? null;
    const [categories, days] = await Promise.all([
      this.repo.categories(zones, q.from, q.to, category),
      category === null ? this.repo.days(zones, q.from, q.to) : Promise.resolve([]),
    ]);
    return salesFigures(categories, days, category);
  }

  async topProducts(
    q: RangeQuery & { category_id?: string | undefined; by: RankBy; limit: number },
  ): Promise<CategoryTop[]> {
    const zones = this.zonesOf(q.zone);
    const cells = await this.repo.products(
      zones,
      periodsCovering(q.from, q.to),
      q.category_id?.toLowerCase() ?? null,
    );
    return topProducts(cells, q.by, q.limit);
  }

  async basket(q: RangeQuery): Promise<BasketFigures> {
    return basketFigures(await this.repo.days(this.zonesOf(q.zone), q.from, q.to));
  }

  async cancellations(q: RangeQuery): Promise<CancellationFigures> {
    return cancellationFigures(await this.repo.days(this.zonesOf(q.zone), q.from, q.to));
  }

  /** Zones are configuration (ZONES): a well-formed zone that is not served is a 422 naming the field. */
  private zonesOf(zone: string | undefined): readonly string[] {
    if (zone === undefined) return this.servedZones;
    if (!this.servedZones.includes(zone)) {
      throw AppError.unprocessable(
        [{ field: 'query.zone', message: `unknown zone ${zone}; zones: ${this.servedZones.join(', ')}` }],
        'ORDERS.UNKNOWN_ZONE',
      );
    }
    return [zone];
  }
}

/** Keeps the read model up to date: an order event only means "look at this order again". */
export class AnalyticsProjector {
  constructor(
    private readonly repo: AnalyticsRepository,
    private readonly logger: Logger,
    private readonly metrics?: AnalyticsMetrics,
  ) {}

  /**
   * Group commit (ADR 0051): the events of one consumed batch applied together — every order they
   * name refreshed in one transaction (`refreshMany`). Same effect as `apply` on each in turn: a
   * refresh reads the order's current state, so one refresh per order covers all its events.
   */
  async applyMany(events: readonly EnvelopeOf<'orders.orders.v1'>[]): Promise<void> {
    const orderEvents: { e: EnvelopeOf<'orders.orders.v1'>; orderId: string }[] = [];
    for (const e of events) {
      if (e.type === 'OrderRejected') this.metrics?.events.inc({ type: e.type, outcome: 'not_an_order' });
      else orderEvents.push({ e, orderId: e.payload.order_id.toLowerCase() });
    }
    if (orderEvents.length === 0) return;
    const outcomes = await this.repo.refreshMany(orderEvents.map((o) => o.orderId));
    const reported = new Set<string>();
    const applied: string[] = [];
    const facts: Record<string, number> = {};
    for (const { e, orderId } of orderEvents) {
      // the first event of an order in the batch carries its outcome; the others found nothing more
      const outcome: RefreshOutcome = reported.has(orderId) ? { kind: 'unchanged' } : (outcomes.get(orderId) ?? { kind: 'missing' });
      reported.add(orderId);
      this.metrics?.observe(e.type, outcome, e.occurred_at);
      if (outcome.kind === 'applied') {
        applied.push(orderId);
        for (const f of outcome.facts) facts[f] = (facts[f] ?? 0) + 1;
      }
      if (outcome.kind === 'missing') this.logger.warn({ order_id: orderId, event: e.type }, 'order event for an order that does not exist; nothing to count');
    }
    // one line per batch (ADR 0015 §5): its facts were committed together, in the batch's transaction
    if (applied.length > 0) this.logger.info({ orders: applied.length, facts, order_ids: applied }, 'sales facts applied');
  }

  async apply(e: EnvelopeOf<'orders.orders.v1'>): Promise<void> {
    switch (e.type) {
      case 'OrderRejected':
        // a checkout that never became an order: nothing was placed
        this.metrics?.events.inc({ type: e.type, outcome: 'not_an_order' });
        return;
      case 'OrderCreated':
      case 'OrderConfirmed':
      case 'OrderCancelled':
      case 'OrderDeliveryStarted':
      case 'OrderCompleted': {
        const orderId = e.payload.order_id.toLowerCase();
        const outcome = await this.repo.refresh(orderId);
        this.metrics?.observe(e.type, outcome, e.occurred_at);
        if (outcome.kind === 'applied')
          this.logger.info({ order_id: orderId, event: e.type, facts: outcome.facts }, 'sales facts applied');
        // Orders are written (majority) before their events are relayed, so this is an event of
        // another database or a hand-made one: there is nothing to count and nothing to wait for.
        if (outcome.kind === 'missing')
          this.logger.warn(
            { order_id: orderId, event: e.type },
            'order event for an order that does not exist; nothing to count',
          );
        return;
      }
      default:
        return assertUnreachable(e);
    }
  }
}
