/**
 * The search's state lives in the URL (a search can be linked): URL parameters ⇄ the catalog's
 * search query. Only values the API accepts pass; an empty field is left out.
 */
import type { paths } from '../api/generated/catalog';

export type SearchQuery = NonNullable<paths['/products']['get']['parameters']['query']>;
export type SearchSort = NonNullable<SearchQuery['sort']>;
export const SORTS: readonly SearchSort[] = ['newest', 'price_asc', 'price_desc', 'discount'];

const PRICE = /^(?:0|[1-9]\d{0,7})(?:\.\d{1,2})?$/;
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
  const attributes = p.get('attributes')?.trim();
  if (attributes && ATTRIBUTES.test(attributes)) q.attributes = attributes;
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
