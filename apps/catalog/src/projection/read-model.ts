/**
 * The Cassandra read side (seed 003): products_by_id and products_by_category with a creation
 * period in the partition key (ADR 0032). Plain rules: which rows an event writes or deletes, at
 * which write timestamp, in which period. No driver import.
 */
export interface CategoryRow {
  readonly category_id: string;
  /** The partition's period: creation time in whole periods since the epoch (periodOf). */
  readonly bucket: number;
  readonly created_at: Date;
  readonly product_id: string;
}

export interface ListingRow extends CategoryRow {
  readonly name: string;
  readonly price: number;
  readonly attributes: Readonly<Record<string, string>>;
  readonly pct_savings: number | null;
  /** The product's own category (the row may be an ancestor's fan-out copy). */
  readonly product_category_id: string;
  readonly version: number;
}

export interface ProductRow {
  readonly product_id: string;
  readonly version: number;
  readonly name: string;
  readonly category_id: string;
  readonly ancestors: readonly string[];
  readonly price: number;
  readonly currency: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly list_price: number | null;
  readonly retail_price: number | null;
  readonly pct_savings: number | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/**
 * What one event does to the read side. Every statement carries the same write timestamp,
 * derived from (created_at, version): a later version always has a bigger timestamp, so
 * duplicates are no-ops and an older event arriving late is shadowed (last-write-wins by version).
 */
export interface ProjectionPlan {
  readonly timestamp: bigint;
  readonly upsertProduct: ProductRow | null;
  readonly deleteProduct: string | null;
  readonly upsertRows: readonly ListingRow[];
  readonly deleteRows: readonly CategoryRow[];
  /** Written last, after every row: the newest version applied and where it is listed (ADR 0032 §6). */
  readonly seen: SeenVersion;
}

/**
 * What the projector last applied for a product (table product_versions, never deleted, no
 * TTL): its version, whether that version was a delete, and the ancestors it is listed under.
 * It outlives the tombstones of the other tables, so an event older than it is refused however
 * late it arrives (a DLQ redrive, a replay) — and a later event knows which rows to remove even
 * when an intermediate ProductCategoryChanged never arrived.
 */
export interface SeenVersion {
  readonly product_id: string;
  readonly version: number;
  readonly deleted: boolean;
  readonly ancestors: readonly string[];
  readonly created_at: Date;
}

export type Decision =
  | { readonly apply: true; readonly plan: ProjectionPlan }
  | {
      readonly apply: false;
      readonly reason: 'duplicate' | 'stale' | 'after-delete';
      readonly seen: SeenVersion;
    };

/** Microseconds: creation time in ms × 1000 + version. Monotonic in version for one product. */
export function writeTimestamp(createdAt: Date, version: number): bigint {
  return BigInt(createdAt.getTime()) * 1000n + BigInt(version);
}

const DAY_MS = 86_400_000;

/**
 * The period of a creation time: whole periods of `periodDays` since the epoch. A product's rows
 * stay in one period for life (created_at never changes); newest first is newest period first.
 */
export function periodOf(createdAt: Date, periodDays: number): number {
  return Math.floor(createdAt.getTime() / (periodDays * DAY_MS));
}

export interface SnapshotLike {
  readonly product_id: string;
  readonly version: number;
  readonly name: string;
  readonly category_id: string;
  readonly ancestors: readonly string[];
  readonly price: number;
  readonly currency: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly pricing?:
    { readonly list: number; readonly retail: number; readonly pct_savings: number } | undefined;
  readonly created_at: string;
  readonly updated_at: string;
}

export type ProductEvent =
  | {
      readonly type: 'ProductCreated' | 'ProductUpdated' | 'ProductPriceChanged';
      readonly payload: SnapshotLike;
    }
  | {
      readonly type: 'ProductCategoryChanged';
      readonly payload: SnapshotLike & { readonly previous_ancestors: readonly string[] };
    }
  | {
      readonly type: 'ProductDeleted';
      readonly payload: {
        readonly product_id: string;
        readonly version: number;
        readonly ancestors: readonly string[];
        readonly created_at: string;
      };
    };

/**
 * Write fan-out (ADR 0032): a product is listed in its category and in every ancestor, so
 * "new in Электроника" is one bucketed read, not a scatter over the subtree.
 */
export function planFor(e: ProductEvent, periodDays: number): ProjectionPlan {
  const createdAt = new Date(e.payload.created_at);
  const timestamp = writeTimestamp(createdAt, e.payload.version);
  const rowKey = (category_id: string): CategoryRow => ({
    category_id,
    bucket: periodOf(createdAt, periodDays),
    created_at: createdAt,
    product_id: e.payload.product_id,
  });
  switch (e.type) {
    case 'ProductDeleted':
      return {
        timestamp,
        upsertProduct: null,
        deleteProduct: e.payload.product_id,
        upsertRows: [],
        deleteRows: e.payload.ancestors.map(rowKey),
        seen: {
          product_id: e.payload.product_id,
          version: e.payload.version,
          deleted: true,
          ancestors: [],
          created_at: createdAt,
        },
      };
    case 'ProductCreated':
    case 'ProductUpdated':
    case 'ProductPriceChanged':
    case 'ProductCategoryChanged': {
      const s = e.payload;
      const current = new Set(s.ancestors);
      const left =
        e.type === 'ProductCategoryChanged'
          ? e.payload.previous_ancestors.filter((c) => !current.has(c))
          : [];
      return {
        timestamp,
        upsertProduct: productRow(s),
        deleteProduct: null,
        upsertRows: s.ancestors.map((c) => ({
          ...rowKey(c),
          name: s.name,
          price: s.price,
          attributes: s.attributes,
          pct_savings: s.pricing?.pct_savings ?? null,
          product_category_id: s.category_id,
          version: s.version,
        })),
        deleteRows: left.map(rowKey),
        seen: {
          product_id: s.product_id,
          version: s.version,
          deleted: false,
          ancestors: s.ancestors,
          created_at: createdAt,
        },
      };
    }
  }
}

/**
 * The projector's decision for one event given what it last applied for the product (null:
 * nothing yet). An event not newer than the seen version is refused: it is a duplicate, or an
 * older snapshot that a newer one already superseded (full snapshots), or it follows a delete
 * whose tombstones may long be purged (a late redrive would otherwise resurrect the rows).
 * An applied event also removes the rows of wherever the product is listed now and is not any
 * more — a skipped intermediate ProductCategoryChanged cannot leave an orphan row behind.
 */
export function decide(e: ProductEvent, periodDays: number, seen: SeenVersion | null): Decision {
  if (seen && e.payload.version <= seen.version) {
    const reason = seen.deleted ? 'after-delete' : e.payload.version === seen.version ? 'duplicate' : 'stale';
    return { apply: false, reason, seen };
  }
  const plan = planFor(e, periodDays);
  if (!seen || seen.deleted || seen.ancestors.length === 0) return { apply: true, plan };
  const keep = new Set([...plan.upsertRows, ...plan.deleteRows].map((r) => r.category_id));
  const orphans = seen.ancestors
    .filter((c) => !keep.has(c))
    .map((category_id) => ({
      category_id,
      bucket: periodOf(new Date(e.payload.created_at), periodDays),
      created_at: new Date(e.payload.created_at),
      product_id: e.payload.product_id,
    }));
  return { apply: true, plan: { ...plan, deleteRows: [...plan.deleteRows, ...orphans] } };
}

export function productRow(s: SnapshotLike): ProductRow {
  return {
    product_id: s.product_id,
    version: s.version,
    name: s.name,
    category_id: s.category_id,
    ancestors: s.ancestors,
    price: s.price,
    currency: s.currency,
    attributes: s.attributes,
    list_price: s.pricing?.list ?? null,
    retail_price: s.pricing?.retail ?? null,
    pct_savings: s.pricing?.pct_savings ?? null,
    created_at: new Date(s.created_at),
    updated_at: new Date(s.updated_at),
  };
}

export interface BatchDecisions<E extends ProductEvent> {
  /** The plan of every applied event, in the order of the events. */
  readonly plans: readonly { readonly event: E; readonly plan: ProjectionPlan }[];
  /** What is written: one plan per product, its applied versions coalesced (coalesce). */
  readonly writes: readonly ProjectionPlan[];
  readonly skipped: readonly { readonly event: E; readonly reason: 'duplicate' | 'stale' | 'after-delete' }[];
  /** Per product, the newest version the batch applies: written after every row of every plan. */
  readonly seen: readonly SeenVersion[];
}

/**
 * The decisions for a batch of events, the same as applying them one at a time: each event is
 * decided against what the events before it in the batch made of the product (starting from
 * what was applied before the batch, `seen`), so a duplicate or an older version inside one
 * batch is refused, and a later event removes the rows of an earlier one's listing.
 */
export function decideBatch<E extends ProductEvent>(
  events: readonly E[],
  periodDays: number,
  seen: ReadonlyMap<string, SeenVersion>,
): BatchDecisions<E> {
  const current = new Map(seen);
  const applied = new Map<string, SeenVersion>();
  const plans: { event: E; plan: ProjectionPlan }[] = [];
  const skipped: { event: E; reason: 'duplicate' | 'stale' | 'after-delete' }[] = [];
  for (const event of events) {
    const id = event.payload.product_id;
    const d = decide(event, periodDays, current.get(id) ?? null);
    if (!d.apply) {
      skipped.push({ event, reason: d.reason });
      continue;
    }
    plans.push({ event, plan: d.plan });
    current.set(id, d.plan.seen);
    applied.set(id, d.plan.seen);
  }
  return { plans, writes: coalesce(plans.map((p) => p.plan)), skipped, seen: [...applied.values()] };
}

/**
 * One plan per product for the plans of a batch (ADR 0034 "Coalescing"): a burst updates the same
 * products again and again, and only the newest version's rows need writing. Each product's plans
 * come in increasing version (decideBatch applies nothing older than what it applied before), so
 * the last one is the newest. Its plan is written as it is, at its own (the highest) timestamp,
 * and it also deletes every row position an earlier plan of the batch wrote or deleted that the
 * newest version does not list: a category it passed through inside the batch, or one it left.
 * Deleting at the newest timestamp is right for those rows: no version up to the newest lists the
 * product there any more, and a later version writes with a bigger timestamp. A stale batch (an
 * overlapping consumer during a rebalance) still carries only timestamps of its own versions, so
 * it cannot overwrite a newer one (ADR 0032 §4).
 */
export function coalesce(plans: readonly ProjectionPlan[]): ProjectionPlan[] {
  const byProduct = new Map<string, ProjectionPlan[]>();
  for (const plan of plans) {
    const list = byProduct.get(plan.seen.product_id);
    if (list) list.push(plan);
    else byProduct.set(plan.seen.product_id, [plan]);
  }
  const out: ProjectionPlan[] = [];
  for (const list of byProduct.values()) {
    const newest = list[list.length - 1];
    if (!newest) continue;
    if (list.length === 1) {
      out.push(newest);
      continue;
    }
    const kept = new Set(newest.upsertRows.map((r) => r.category_id));
    const deletes = new Map<string, CategoryRow>();
    for (const r of newest.deleteRows) deletes.set(r.category_id, r);
    for (const plan of list)
      for (const r of [...plan.upsertRows, ...plan.deleteRows])
        if (!kept.has(r.category_id) && !deletes.has(r.category_id))
          deletes.set(r.category_id, {
            category_id: r.category_id,
            bucket: r.bucket,
            created_at: r.created_at,
            product_id: r.product_id,
          });
    out.push({ ...newest, deleteRows: [...deletes.values()] });
  }
  return out;
}
