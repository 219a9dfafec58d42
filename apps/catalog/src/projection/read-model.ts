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
        seen: seenAfter(e),
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
        seen: seenAfter(e),
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
  const reason = refusal(e.payload.version, seen);
  return reason && seen ? { apply: false, reason, seen } : { apply: true, plan: planOver(e, periodDays, seen) };
}

/** The plan of an event newer than `seen`: planFor, plus deleting where `seen` lists the product and the event does not. */
function planOver(e: ProductEvent, periodDays: number, seen: SeenVersion | null): ProjectionPlan {
  const plan = planFor(e, periodDays);
  if (!seen || seen.deleted || seen.ancestors.length === 0) return plan;
  const keep = new Set([...plan.upsertRows, ...plan.deleteRows].map((r) => r.category_id));
  const orphans = seen.ancestors
    .filter((c) => !keep.has(c))
    .map((category_id) => rowKeyOf(e, category_id, periodDays));
  return { ...plan, deleteRows: [...plan.deleteRows, ...orphans] };
}

type Refusal = 'duplicate' | 'stale' | 'after-delete';

/** Why an event of `version` is refused given what was applied before it, or null: it is newer. */
function refusal(version: number, before: { readonly version: number; readonly deleted: boolean } | null): Refusal | null {
  if (!before || version > before.version) return null;
  return before.deleted ? 'after-delete' : version === before.version ? 'duplicate' : 'stale';
}

function rowKeyOf(e: ProductEvent, category_id: string, periodDays: number): CategoryRow {
  const created_at = new Date(e.payload.created_at);
  return { category_id, bucket: periodOf(created_at, periodDays), created_at, product_id: e.payload.product_id };
}

/** What an applied event leaves in product_versions (planFor's `seen`, without planning the rows). */
function seenAfter(e: ProductEvent): SeenVersion {
  const deleted = e.type === 'ProductDeleted';
  return {
    product_id: e.payload.product_id,
    version: e.payload.version,
    deleted,
    ancestors: deleted ? [] : e.payload.ancestors,
    created_at: new Date(e.payload.created_at),
  };
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
  /** Every applied event, in the order of the events: the newest of each product and the ones coalesced into it. */
  readonly applied: readonly E[];
  /** What is written: one plan per product, its applied versions coalesced. */
  readonly writes: readonly ProjectionPlan[];
  readonly skipped: readonly { readonly event: E; readonly reason: Refusal }[];
  /** Per product, the newest version the batch applies: written after every row of every plan. */
  readonly seen: readonly SeenVersion[];
}

/**
 * The decisions for a batch of events, the same as applying them one at a time: each event is
 * decided against what the events before it in the batch made of the product (starting from
 * what was applied before the batch, `seen`), so a duplicate or an older version inside one
 * batch is refused, and a later event removes the rows of an earlier one's listing.
 *
 * What is written is one plan per product (ADR 0034 "Coalescing"): a burst updates the same
 * products again and again, and only the newest version's rows need writing. Only the newest
 * applied version of a product is planned (planOver, as decide would, against the version
 * applied before it); the older ones give just the row positions they wrote or deleted — their
 * listing, the listing they left, and for the first one the listing applied before the batch. The newest plan also deletes
 * each of those positions it does not list, at its own (the batch's highest) timestamp: a
 * category the product passed through inside the batch, or one it left. Deleting at the newest
 * timestamp is right for those rows: no version up to the newest lists the product there any
 * more, and a later version writes with a bigger timestamp. A stale batch (an overlapping
 * consumer during a rebalance) still carries only timestamps of its own versions, so it cannot
 * overwrite a newer one (ADR 0032 §4).
 */
export function decideBatch<E extends ProductEvent>(
  events: readonly E[],
  periodDays: number,
  seen: ReadonlyMap<string, SeenVersion>,
): BatchDecisions<E> {
  const current = new Map<string, { version: number; deleted: boolean }>();
  const byProduct = new Map<string, E[]>();
  const applied: E[] = [];
  const skipped: { event: E; reason: Refusal }[] = [];
  for (const event of events) {
    const id = event.payload.product_id;
    const reason = refusal(event.payload.version, current.get(id) ?? seen.get(id) ?? null);
    if (reason) {
      skipped.push({ event, reason });
      continue;
    }
    applied.push(event);
    current.set(id, { version: event.payload.version, deleted: event.type === 'ProductDeleted' });
    const list = byProduct.get(id);
    if (list) list.push(event);
    else byProduct.set(id, [event]);
  }
  const writes: ProjectionPlan[] = [];
  const after: SeenVersion[] = [];
  for (const [id, list] of byProduct) {
    const older = list.slice(0, -1);
    const [newest] = list.slice(-1);
    const [previous] = older.slice(-1);
    const stored = seen.get(id) ?? null;
    if (!newest) continue;
    const plan = planOver(newest, periodDays, previous ? seenAfter(previous) : stored);
    writes.push(previous ? withEarlierPositions(plan, older, stored, periodDays) : plan);
    after.push(plan.seen);
  }
  return { applied, writes, skipped, seen: after };
}

/**
 * The newest plan of a product, also deleting every row position the older applied versions of
 * the batch wrote or deleted that it does not list (decideBatch).
 */
function withEarlierPositions(
  newest: ProjectionPlan,
  older: readonly ProductEvent[],
  stored: SeenVersion | null,
  periodDays: number,
): ProjectionPlan {
  const listed = new Set(newest.upsertRows.map((r) => r.category_id));
  const deletes = new Map<string, CategoryRow>();
  for (const r of newest.deleteRows) deletes.set(r.category_id, r);
  const add = (e: ProductEvent, categories: readonly string[]): void => {
    for (const c of categories)
      if (!listed.has(c) && !deletes.has(c)) deletes.set(c, rowKeyOf(e, c, periodDays));
  };
  older.forEach((e, i) => {
    add(e, e.payload.ancestors);
    if (e.type === 'ProductCategoryChanged') add(e, e.payload.previous_ancestors);
    // the first one's plan also deleted where the product was listed before the batch
    if (i === 0 && stored && !stored.deleted) add(e, stored.ancestors);
  });
  return { ...newest, deleteRows: [...deletes.values()] };
}
