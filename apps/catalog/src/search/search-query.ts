/**
 * Builds the MongoDB query for GET /products from validated parameters. Plain data in, plain
 * data out (no driver import): ids stay hex strings and the repository converts them.
 * Every sort ends in _id so a cursor ({sort key, _id} of the last item) resumes exactly after
 * it, and inserts elsewhere do not shift pages (keyset pagination, stable under inserts).
 */
export const SORTS = ['price_asc', 'price_desc', 'newest', 'discount'] as const;
export type SortName = (typeof SORTS)[number];

export interface SearchParams {
  readonly category_id?: string;
  readonly include_subcategories: boolean;
  readonly min_price?: number;
  readonly max_price?: number;
  readonly attributes: Readonly<Record<string, string>>;
  readonly sort: SortName;
  readonly limit: number;
  readonly cursor?: Cursor;
}

export interface Cursor {
  readonly sort: SortName;
  /** Value of the sort field of the last item (price, discount, or created_at epoch ms). */
  readonly key: number;
  readonly id: string;
}

/** An ObjectId reference the repository turns into a driver ObjectId. */
export interface IdRef {
  readonly $oid: string;
}
/** A Date reference the repository turns into a Date. */
export interface DateRef {
  readonly $date: number;
}
export type Value =
  string | number | null | IdRef | DateRef | readonly Value[] | { readonly [k: string]: Value };
export type Filter = { readonly [k: string]: Value };

export interface MongoSearch {
  readonly filter: Filter;
  readonly sort: Readonly<Record<string, 1 | -1>>;
  readonly limit: number;
  /** Index the shape is built for (documented, asserted by the explain test). */
  readonly index: string;
}

const SORT_SPEC: Record<SortName, { field: string; dir: 1 | -1; index: string; date: boolean }> = {
  price_asc: { field: 'price', dir: 1, index: 'price', date: false },
  price_desc: { field: 'price', dir: -1, index: 'price', date: false },
  newest: { field: 'created_at', dir: -1, index: 'newest', date: true },
  discount: { field: 'discount_pct', dir: -1, index: 'discount', date: false },
};

export const oid = (hex: string): IdRef => ({ $oid: hex });

export function buildSearch(p: SearchParams): MongoSearch {
  const spec = SORT_SPEC[p.sort];
  const and: Filter[] = [{ deleted_at: null }];
  let index = spec.index;
  if (p.category_id) {
    const field = p.include_subcategories ? 'ancestors' : 'category_id';
    and.unshift({ [field]: oid(p.category_id) });
    index = `${p.include_subcategories ? 'ancestors' : 'category'}_${spec.index === 'price' ? 'price' : spec.index}`;
  }
  if (p.min_price !== undefined || p.max_price !== undefined) {
    and.push({
      price: {
        ...(p.min_price !== undefined ? { $gte: p.min_price } : {}),
        ...(p.max_price !== undefined ? { $lte: p.max_price } : {}),
      },
    });
  }
  for (const [k, v] of Object.entries(p.attributes)) and.push({ [`attributes.${k}`]: v });
  if (p.cursor) and.push(after(p.cursor, spec));
  return {
    filter: and.length === 1 ? (and[0] as Filter) : { $and: and },
    sort: { [spec.field]: spec.dir, _id: spec.dir },
    limit: p.limit,
    index,
  };
}

function after(c: Cursor, spec: (typeof SORT_SPEC)[SortName]): Filter {
  const op = spec.dir === 1 ? '$gt' : '$lt';
  const key: Value = spec.date ? { $date: c.key } : c.key;
  return { $or: [{ [spec.field]: { [op]: key } }, { [spec.field]: key, _id: { [op]: oid(c.id) } }] };
}

/** Cursor of the page after `last`. */
export function cursorAfter(
  sort: SortName,
  last: { id: string; price: number; discount_pct: number; created_at: Date },
): Cursor {
  const key =
    sort === 'newest' ? last.created_at.getTime() : sort === 'discount' ? last.discount_pct : last.price;
  return { sort, key, id: last.id };
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.sort, c.key, c.id])).toString('base64url');
}

/** null when the text is not a cursor this API issued for this sort. */
export function decodeCursor(text: string, sort: SortName): Cursor | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(v) || v.length !== 3) return null;
    const [s, key, id] = v as unknown[];
    if (s !== sort || typeof key !== 'number' || !Number.isSafeInteger(key) || key < 0) return null;
    if (typeof id !== 'string' || !/^[0-9a-f]{24}$/.test(id)) return null;
    return { sort, key, id };
  } catch {
    return null;
  }
}
