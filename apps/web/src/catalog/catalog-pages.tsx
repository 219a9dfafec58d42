import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router-dom';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';
import { useT } from '../i18n/i18n';
import { ErrorView, Loading } from '../shell/status';
import { ProductList } from './product-list';
import { useCategoryTree } from './use-category-tree';

export { useCategoryTree };

import type { TreeNode } from './category-path';
import { ProductImage } from './placeholder';

/** A root category as a tile: its picture, name and its sub-categories as links. */
function CategoryTile({ node }: { node: TreeNode }) {
  return (
    <li className="tile">
      <Link to={`/c/${node.slug}`} className="tile-head">
        <ProductImage categoryId={node.id} ancestors={[node.id]} />
        <span className="tile-name">{node.name}</span>
      </Link>
      <ul className="chips">
        {node.children.map((c) => (
          <li key={c.id}>
            <Link to={`/c/${c.slug}`}>{c.name}</Link>
          </li>
        ))}
      </ul>
    </li>
  );
}

/** The whole category tree (public). */
export function HomePage() {
  const t = useT();
  const tree = useCategoryTree();
  return (
    <section>
      <h1>{t('catalog.title')}</h1>
      {tree.isPending ? (
        <Loading />
      ) : tree.isError ? (
        <ErrorView error={tree.error} />
      ) : (
        <ul className="tiles">
          {tree.data.map((n) => (
            <CategoryTile key={n.id} node={n} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** A category: breadcrumbs, sub-categories and "new in category" from the Cassandra listing, a cursor page at a time. */
export function CategoryPage() {
  const t = useT();
  const api = useApi();
  const { slug = '' } = useParams();
  const category = useQuery({
    queryKey: ['category', slug],
    queryFn: async () => unwrap(await api.catalog.GET('/categories/{slug}', { params: { path: { slug } } })),
  });
  const listing = useInfiniteQuery({
    queryKey: ['category-listing', slug],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      unwrap(
        await api.catalog.GET('/categories/{slug}/products', {
          params: { path: { slug }, query: { limit: 20, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  if (category.isPending) return <Loading />;
  if (category.isError) return <ErrorView error={category.error} />;
  const c = category.data;
  const items = listing.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section>
      <nav aria-label={t('catalog.breadcrumbs')} className="breadcrumbs">
        <Link to="/">{t('catalog.home')}</Link>
        {c.breadcrumbs.map((b) => (
          <span key={b.id}>
            {' › '}
            {b.slug === c.slug ? (
              <span aria-current="page">{b.name}</span>
            ) : (
              <Link to={`/c/${b.slug}`}>{b.name}</Link>
            )}
          </span>
        ))}
      </nav>
      <h1>{c.name}</h1>
      <p>
        <Link to={`/search?category_id=${c.id}`}>{t('catalog.searchHere')}</Link>
      </p>
      {c.children.length > 0 && (
        <>
          <h2>{t('catalog.subcategories')}</h2>
          <ul className="chips">
            {c.children.map((ch) => (
              <li key={ch.id}>
                <Link to={`/c/${ch.slug}`}>{ch.name}</Link>
              </li>
            ))}
          </ul>
        </>
      )}
      <h2>{t('catalog.newIn', { category: c.name })}</h2>
      {listing.isPending ? (
        <Loading />
      ) : listing.isError ? (
        <ErrorView error={listing.error} />
      ) : items.length === 0 ? (
        <p>{t('catalog.empty')}</p>
      ) : (
        <ProductList items={items} />
      )}
      {listing.hasNextPage && (
        <button
          type="button"
          disabled={listing.isFetchingNextPage}
          onClick={() => void listing.fetchNextPage()}
        >
          {t('app.loadMore')}
        </button>
      )}
    </section>
  );
}
