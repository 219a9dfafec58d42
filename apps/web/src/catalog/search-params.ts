/**
 * The search's state lives in the URL (a search can be linked): URL parameters ⇄ the catalog's
 * search query. Only values the API accepts pass; an empty field is left out. The facets (brand,
 * memory, colour) are URL parameters of their own (`?brand=Apple&storage_gb=256`) that become
 * attribute filters of the query, beside any other `attributes=key:value` pairs.
 */
import type { paths } from '../api/generated/catalog';

export type SearchQuery = NonNullable<paths['/products']['get']['parameters']['query']>;
export type SearchSort = NonNullable<SearchQuery['sort']>;
export const SORTS: readonly SearchSort[] = ['newest', 'price_asc', 'price_desc', 'discount'];

const PRICE = /^(?:0|[1-9]\d{0,7})(?:\.\d{1,2})?$/;
/** Attribute filters the search form offers as fields, with the values it proposes (any other value is typed). */
export const FACETS = {
  brand: [] as readonly string[],
  storage_gb: ['64', '128', '256', '512', '1024'],
  ram_gb: ['4', '6', '8', '12', '16', '32'],
  color: ['черный', 'белый', 'серебристый', 'синий', 'зеленый', 'красный'],
} as const satisfies Readonly<Record<string, readonly string[]>>;
export type Facet = keyof typeof FACETS;
export const FACET_NAMES = Object.keys(FACETS) as Facet[];
const FACET_VALUE = /^[^,:]{1,256}$/;

const ATTRIBUTES = /^[a-z][a-z0-9_]{0,63}:[^,]{1,256}(?:,[a-z][a-z0-9_]{0,63}:[^,]{1,256}){0,49}$/;

export function searchQueryFromParams(p: URLSearchParams): SearchQuery {
  const q: SearchQuery = {};
  const category = p.get('category_id');
  if (category && /^[0-9a-f]{24}$/.test(category)) q.category_id = category;
  if (p.get('include_subcategories') === 'false') q.include_subcategories = 'false';
  const min = p.get('min_price')?.trim();
  if (min && PRICE.test(min)) q.min_price = min;
  const max = p.get('max_price')?.trim();
  if (max && PRICE.test(max)) q.max_price = max;
  const pairs = new Map<string, string>();
  const attributes = p.get('attributes')?.trim();
  if (attributes && ATTRIBUTES.test(attributes))
    for (const pair of attributes.split(',')) pairs.set(pair.slice(0, pair.indexOf(':')), pair);
  for (const facet of FACET_NAMES) {
    const v = facetOf(p, facet);
    if (v) pairs.set(facet, `${facet}:${v}`);
  }
  const merged = [...pairs.values()].join(',');
  if (merged && ATTRIBUTES.test(merged)) q.attributes = merged;
  const sort = p.get('sort');
  const known = SORTS.find((s) => s === sort);
  if (known) q.sort = known;
  return q;
}

/** The URL parameters of a form's fields: empty ones left out, so the link stays short. */
export function paramsFromForm(fields: Readonly<Record<string, string>>): URLSearchParams {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v.trim() !== '') p.set(k, v.trim());
  return p;
}

/** A facet's value in the URL, when the API would accept it (no comma, no colon, 1–256 characters). */
export function facetOf(p: URLSearchParams, facet: Facet): string | undefined {
  const v = p.get(facet)?.trim();
  return v && FACET_VALUE.test(v) ? v : undefined;
}
