import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useMemo } from 'react';
import { Link } from 'react-router-dom';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';
import type { components } from '../api/generated/catalog';
import { useCategoryTree } from '../catalog/catalog-pages';
import { useT } from '../i18n/i18n';
import { ErrorView } from '../shell/status';

type TreeNode = components['schemas']['getCategoryTree_response_CategoryTreeNode'];
const flatten = (nodes: readonly TreeNode[], depth = 0): { id: string; slug: string; label: string }[] =>
  nodes.flatMap((n) => [
    { id: n.id, slug: n.slug, label: `${'  '.repeat(depth)}${n.name}` },
    ...flatten(n.children, depth + 1),
  ]);

/** Catalog manager: create a product, rename a category. */
export function CatalogAdminPage() {
  const t = useT();
  const api = useApi();
  const qc = useQueryClient();
  const tree = useCategoryTree();
  const categories = useMemo(() => flatten(tree.data ?? []), [tree.data]);
  const create = useMutation({
    mutationFn: async (body: { name: string; category_id: string; price: string }) =>
      unwrap(await api.catalog.POST('/products', { body: { ...body, attributes: {} } })),
  });
  const rename = useMutation({
    mutationFn: async ({ slug, name }: { slug: string; name: string }) =>
      unwrap(await api.catalog.PATCH('/categories/{slug}', { params: { path: { slug } }, body: { name } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['categories'] }),
  });
  const field = (e: FormEvent<HTMLFormElement>, name: string): string =>
    String(new FormData(e.currentTarget).get(name) ?? '');
  return (
    <section>
      <h1>{t('staff.catalog.title')}</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({
            name: field(e, 'name'),
            category_id: field(e, 'category_id'),
            price: field(e, 'price'),
          });
        }}
      >
        <label>
          {t('staff.catalog.name')} <input name="name" required />
        </label>{' '}
        <label>
          {t('staff.catalog.category')}{' '}
          <select name="category_id" required>
            {categories.map((c) => (
              <option key={c.id} value={c.id}>
                {c.label}
              </option>
            ))}
          </select>
        </label>{' '}
        <label>
          {t('staff.catalog.price')} <input name="price" required pattern="\d{1,9}(\.\d{1,2})?" />
        </label>{' '}
        <button type="submit" disabled={create.isPending}>
          {t('staff.catalog.create')}
        </button>
      </form>
      {create.isSuccess && (
        <p role="status">
          <Link to={`/p/${create.data.id}`}>{t('staff.catalog.created', { name: create.data.name })}</Link>
        </p>
      )}
      {create.isError && <ErrorView error={create.error} />}
      <h2>{t('staff.catalog.rename')}</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          rename.mutate({ slug: field(e, 'slug'), name: field(e, 'new_name') });
        }}
      >
        <label>
          {t('staff.catalog.category')}{' '}
          <select name="slug" required>
            {categories.map((c) => (
              <option key={c.id} value={c.slug}>
                {c.label}
              </option>
            ))}
          </select>
        </label>{' '}
        <label>
          {t('staff.catalog.newName')} <input name="new_name" required />
        </label>{' '}
        <button type="submit" disabled={rename.isPending}>
          {t('staff.catalog.rename')}
        </button>
      </form>
      {rename.isError && <ErrorView error={rename.error} />}
    </section>
  );
}
