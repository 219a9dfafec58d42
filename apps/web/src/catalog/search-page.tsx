import { useInfiniteQuery } from '@tanstack/react-query';
import { type FormEvent, useMemo } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';
import { useT } from '../i18n/i18n';
import { ErrorView, Loading } from '../shell/status';
import { useCategoryTree } from './catalog-pages';
import { ProductList } from './product-list';
import { type Facet, FACETS, facetOf, paramsFromForm, searchQueryFromParams, SORTS } from './search-params';

import type { TreeNode } from './category-path';

function flatten(nodes: readonly TreeNode[], depth = 0): { id: string; label: string }[] {
  return nodes.flatMap((n) => [
    { id: n.id, label: `${'  '.repeat(depth)}${n.name}` },
    ...flatten(n.children, depth + 1),
  ]);
}

const FACET_LABEL = {
  brand: 'search.brand',
  storage_gb: 'search.storage',
  ram_gb: 'search.ram',
  color: 'search.color',
} as const;

/** A facet as a field: a list of the usual values (brand: the brands of the results so far), any other typed. */
function FacetField({
  facet,
  params,
  seen,
}: {
  facet: Facet;
  params: URLSearchParams;
  seen: readonly string[];
}) {
  const t = useT();
  const values = [...new Set([...FACETS[facet], ...seen])].sort((a, b) => a.localeCompare(b, 'ru'));
  return (
    <label>
      {t(FACET_LABEL[facet])}{' '}
      <input
        name={facet}
        list={`facet-${facet}`}
        defaultValue={facetOf(params, facet) ?? ''}
        placeholder={t('search.any')}
      />
      <datalist id={`facet-${facet}`}>
        {values.map((v) => (
          <option key={v} value={v} />
        ))}
      </datalist>
    </label>
  );
}

/** Search on the catalog's MongoDB index: category subtree, price range, attributes, sort; its state is the URL. */
export function SearchPage() {
  const t = useT();
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const query = useMemo(() => searchQueryFromParams(params), [params]);
  const tree = useCategoryTree();
  const categories = useMemo(() => flatten(tree.data ?? []), [tree.data]);
  const results = useInfiniteQuery({
    queryKey: ['search', query],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      unwrap(
        await api.catalog.GET('/products', {
          params: { query: { ...query, limit: 20, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  const submit = (e: FormEvent<HTMLFormElement>): void => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const fields: Record<string, string> = {};
    for (const [k, v] of form.entries()) if (typeof v === 'string') fields[k] = v;
    fields['include_subcategories'] = form.get('include_subcategories') ? '' : 'false';
    setParams(paramsFromForm(fields));
  };
  const items = results.data?.pages.flatMap((p) => p.items) ?? [];
  const brands = items.map((p) => p.attributes['brand']).filter((b): b is string => b !== undefined);
  return (
    <section>
      <h1>{t('search.title')}</h1>
      <form onSubmit={submit} className="search" key={params.toString()}>
        <label>
          {t('search.category')}{' '}
          <select name="category_id" defaultValue={query.category_id ?? ''}>
            <option value="">{t('search.anyCategory')}</option>
            {categories.map((c) => (
              <option key={c.id} value={c.id}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          <input
            type="checkbox"
            name="include_subcategories"
            defaultChecked={query.include_subcategories !== 'false'}
          />{' '}
          {t('search.includeSub')}
        </label>
        <label>
          {t('search.minPrice')}{' '}
          <input name="min_price" inputMode="decimal" defaultValue={query.min_price ?? ''} />
        </label>
        <label>
          {t('search.maxPrice')}{' '}
          <input name="max_price" inputMode="decimal" defaultValue={query.max_price ?? ''} />
        </label>
        <fieldset className="facets">
          <legend>{t('search.filters')}</legend>
          <FacetField facet="brand" params={params} seen={brands} />
          <FacetField facet="storage_gb" params={params} seen={[]} />
          <FacetField facet="ram_gb" params={params} seen={[]} />
          <FacetField facet="color" params={params} seen={[]} />
          <label>
            {t('search.attributes')} <input name="attributes" defaultValue={params.get('attributes') ?? ''} />
          </label>
        </fieldset>
        <label>
          {t('search.sort')}{' '}
          <select name="sort" defaultValue={query.sort ?? 'newest'}>
            {SORTS.map((s) => (
              <option key={s} value={s}>
                {t(`search.sort.${s}`)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">{t('search.submit')}</button>
      </form>
      {results.isPending ? (
        <Loading />
      ) : results.isError ? (
        <ErrorView error={results.error} />
      ) : items.length === 0 ? (
        <p>{t('search.noResults')}</p>
      ) : (
        <ProductList items={items} />
      )}
      {results.hasNextPage && (
        <button
          type="button"
          disabled={results.isFetchingNextPage}
          onClick={() => void results.fetchNextPage()}
        >
          {t('app.loadMore')}
        </button>
      )}
    </section>
  );
}
