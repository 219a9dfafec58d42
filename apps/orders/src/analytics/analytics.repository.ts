import {
  AnyBulkWriteOperation,
  ClientSession,
  Collection,
  Db,
  Document,
  MongoClient,
  MongoServerError,
  ReadPreference,
} from 'mongodb';
import { ORDERS_COLLECTION } from '../orders/orders.repository';
import type { CategoryCounters, DayCounters, ProductCounters } from './figures';
import {
  CellUpdate,
  Fact,
  factsOf,
  markerId,
  SALES_ORDER_PROJECTION,
  SalesOrder,
  Table,
  cellUpdates,
  mergeCellUpdates,
} from './sales-facts';

/** The read model's collections in the orders database (ADR 0051). */
export const ANALYTICS_COLLECTIONS = {
  /** One document per (day, zone): placed, sold orders, revenue, units, cancellations by reason, reversed sales. */
  days: 'analytics_days',
  /** One document per (day, zone, category): sold orders, revenue, units. */
  categories: 'analytics_categories',
  /** One document per (period, zone, category, product), periods being days and whole months. */
  products: 'analytics_products',
  /** One marker per applied fact of an order: `<order id>:<fact>`. */
  applied: 'analytics_applied',
} as const satisfies Record<Table | 'applied', string>;

interface AppliedMarker {
  _id: string;
  order_id: string;
  fact: Fact;
  applied_at: Date;
}

interface Cell extends Document {
  _id: string;
}

export type RefreshOutcome =
  | { readonly kind: 'applied'; readonly facts: readonly Fact[] }
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'missing' };

/**
 * The sales read model. Writes: the facts of one order not yet applied, with their markers, in
 * one transaction on the primary (majority). Reads: counter documents only — never orders — by
 * indexes whose bounds are the zones and the days (or periods) asked for, from a secondary
 * within the configured staleness.
 */
export class AnalyticsRepository {
  private readonly orders: Collection<SalesOrder>;
  private readonly applied: Collection<AppliedMarker>;
  private readonly cells: Record<Table, Collection<Cell>>;

  constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    private readonly readPreference: ReadPreference,
  ) {
    this.orders = db.collection<SalesOrder>(ORDERS_COLLECTION);
    this.applied = db.collection<AppliedMarker>(ANALYTICS_COLLECTIONS.applied);
    this.cells = {
      days: db.collection<Cell>(ANALYTICS_COLLECTIONS.days),
      categories: db.collection<Cell>(ANALYTICS_COLLECTIONS.categories),
      products: db.collection<Cell>(ANALYTICS_COLLECTIONS.products),
    };
  }

  /** Creates the collections (so a transaction never has to) and the indexes every read uses. */
  async ensureIndexes(): Promise<void> {
    try {
      await this.db.createCollection(ANALYTICS_COLLECTIONS.applied);
    } catch (e) {
      if (!(e instanceof MongoServerError && e.code === 48)) throw e; // NamespaceExists
    }
    await this.cells.days.createIndexes([{ key: { zone: 1, day: 1 }, name: 'zone_day' }]);
    await this.cells.categories.createIndexes([
      { key: { zone: 1, day: 1, category_id: 1 }, name: 'zone_day_category' },
      { key: { category_id: 1, zone: 1, day: 1 }, name: 'category_zone_day' },
    ]);
    await this.cells.products.createIndexes([
      { key: { zone: 1, period: 1 }, name: 'zone_period' },
      { key: { category_id: 1, zone: 1, period: 1 }, name: 'category_zone_period' },
    ]);
  }

  /**
   * Looks at the order again and applies each fact that holds and has no marker yet. The order is
   * read first, by `_id` from the primary (majority: it was written so before its event was
   * relayed). Markers and counters are then written in one transaction on the read model's
   * collections alone: they commit together or not at all, so every fact is counted
   * exactly once however often and in whatever order its events arrive. Reading the order outside
   * the transaction is safe because facts only accumulate: an older look finds fewer facts, and
   * the event of the latest change looks again. Two instances refreshing one order at once conflict
   * on the marker; the driver retries the loser, which then finds the marker.
   */
  async refresh(orderId: string, now = new Date()): Promise<RefreshOutcome> {
    const order = await this.orders.findOne(
      { _id: orderId },
      {
        projection: SALES_ORDER_PROJECTION,
        readPreference: ReadPreference.primary,
        readConcern: { level: 'majority' },
      },
    );
    if (!order) return { kind: 'missing' };
    const session = this.client.startSession();
    try {
      return await session.withTransaction(() => this.apply(session, order, now), {
        readPreference: ReadPreference.primary,
        readConcern: { level: 'snapshot' },
        writeConcern: { w: 'majority' },
      });
    } finally {
      await session.endSession();
    }
  }

  /**
   * Group commit (ADR 0051): `refresh` for many orders at once — one read of the orders (`$in`, primary,
   * majority), then one transaction: one read of their markers, one insert of the missing ones and
   * one bulkWrite per counter collection with the updates of every order summed per document. Same
   * guarantees as `refresh` (markers and counters commit together; a fact already marked is not
   * counted again), with a handful of round trips for the whole batch instead of per order.
   */
  async refreshMany(orderIds: readonly string[], now = new Date()): Promise<Map<string, RefreshOutcome>> {
    const ids = [...new Set(orderIds)];
    const outcomes = new Map<string, RefreshOutcome>(ids.map((id) => [id, { kind: 'missing' }]));
    if (ids.length === 0) return outcomes;
    const orders = await this.orders
      .find(
        { _id: { $in: ids } },
        { projection: SALES_ORDER_PROJECTION, readPreference: ReadPreference.primary, readConcern: { level: 'majority' } },
      )
      .toArray();
    if (orders.length === 0) return outcomes;
    const session = this.client.startSession();
    try {
      const applied = await session.withTransaction(() => this.applyMany(session, orders, now), {
        readPreference: ReadPreference.primary,
        readConcern: { level: 'snapshot' },
        writeConcern: { w: 'majority' },
      });
      for (const [id, outcome] of applied) outcomes.set(id, outcome);
      return outcomes;
    } finally {
      await session.endSession();
    }
  }

  private async applyMany(session: ClientSession, orders: readonly SalesOrder[], now: Date): Promise<Map<string, RefreshOutcome>> {
    const factsOfOrder = orders.map((order) => ({ order, facts: factsOf(order) }));
    const done = new Set(
      (
        await this.applied
          .find(
            { _id: { $in: factsOfOrder.flatMap(({ order, facts }) => facts.map((f) => markerId(order._id, f))) } },
            { session, projection: { _id: 1 } },
          )
          .toArray()
      ).map((m) => m._id),
    );
    const outcomes = new Map<string, RefreshOutcome>();
    const markers: AppliedMarker[] = [];
    const updates: CellUpdate[] = [];
    for (const { order, facts } of factsOfOrder) {
      const missing = facts.filter((f) => !done.has(markerId(order._id, f)));
      outcomes.set(order._id, missing.length === 0 ? { kind: 'unchanged' } : { kind: 'applied', facts: missing });
      if (missing.length === 0) continue;
      for (const fact of missing) markers.push({ _id: markerId(order._id, fact), order_id: order._id, fact, applied_at: now });
      updates.push(...cellUpdates(order, missing));
    }
    if (markers.length === 0) return outcomes;
    await this.applied.insertMany(markers, { session });
    const merged = mergeCellUpdates(updates);
    for (const table of ['days', 'categories', 'products'] as const) {
      const ops = merged.filter((u) => u.table === table).map(upsertOf);
      if (ops.length > 0) await this.cells[table].bulkWrite(ops, { session, ordered: true });
    }
    return outcomes;
  }

  private async apply(session: ClientSession, order: SalesOrder, now: Date): Promise<RefreshOutcome> {
    const orderId = order._id;
    const facts = factsOf(order);
    const done = new Set(
      (
        await this.applied
          .find(
            { _id: { $in: facts.map((f) => markerId(orderId, f)) } },
            { session, projection: { fact: 1 } },
          )
          .toArray()
      ).map((m) => m.fact),
    );
    const missing = facts.filter((f) => !done.has(f));
    if (missing.length === 0) return { kind: 'unchanged' };
    await this.applied.insertMany(
      missing.map((fact) => ({ _id: markerId(orderId, fact), order_id: orderId, fact, applied_at: now })),
      { session },
    );
    const updates = cellUpdates(order, missing);
    for (const table of ['days', 'categories', 'products'] as const) {
      const ops = updates.filter((u) => u.table === table).map(upsertOf);
      if (ops.length > 0) await this.cells[table].bulkWrite(ops, { session, ordered: true });
    }
    return { kind: 'applied', facts: missing };
  }

  /** Day counters of the zones over the inclusive range of days. */
  days(zones: readonly string[], from: string, to: string): Promise<DayCounters[]> {
    return this.read<DayCounters>('days', cellFilters.days(zones, from, to));
  }

  /** Category counters of the zones over the range, of one category or all. */
  categories(
    zones: readonly string[],
    from: string,
    to: string,
    category: string | null,
  ): Promise<CategoryCounters[]> {
    return this.read<CategoryCounters>('categories', cellFilters.categories(zones, from, to, category));
  }

  /** Product counters of the zones for the given periods (whole months and days), of one category or all. */
  products(
    zones: readonly string[],
    periods: readonly string[],
    category: string | null,
  ): Promise<ProductCounters[]> {
    return this.read<ProductCounters>('products', cellFilters.products(zones, periods, category));
  }

  private async read<T>(table: Table, filter: Document): Promise<T[]> {
    const docs = await this.cells[table]
      .find(filter, { projection: { _id: 0 }, readPreference: this.readPreference })
      .toArray();
    return docs as unknown as T[];
  }
}

/**
 * The filters of the reads: equality or `$in` on the zones (and the category), a range or `$in` on
 * the days (periods) — every one the bounds of an index, so a read examines only the counter
 * documents it returns: at most days × zones × categories (products: periods × zones × products
 * sold), whatever the number of orders.
 */
export const cellFilters = {
  days: (zones: readonly string[], from: string, to: string): Document => ({
    zone: { $in: [...zones] },
    day: { $gte: from, $lte: to },
  }),
  categories: (zones: readonly string[], from: string, to: string, category: string | null): Document => ({
    ...(category === null ? {} : { category_id: category }),
    zone: { $in: [...zones] },
    day: { $gte: from, $lte: to },
  }),
  products: (zones: readonly string[], periods: readonly string[], category: string | null): Document => ({
    ...(category === null ? {} : { category_id: category }),
    zone: { $in: [...zones] },
    period: { $in: [...periods] },
  }),
};

function upsertOf(u: CellUpdate): AnyBulkWriteOperation<Cell> {
  return {
    updateOne: {
      filter: { _id: u.id },
      update: { $setOnInsert: u.keys, $inc: u.inc, ...(u.set ? { $set: u.set } : {}) },
      upsert: true,
    },
  };
}
