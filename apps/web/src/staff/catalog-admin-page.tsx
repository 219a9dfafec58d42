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

/** Catalog manager: create and edit products, rename and move categories. */
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
  const edit = useMutation({
    mutationFn: async ({ id, name, price }: { id: string; name: string; price: string }) =>
      unwrap(
        await api.catalog.PATCH('/products/{id}', {
          params: { path: { id } },
          body: { ...(name ? { name } : {}), ...(price ? { price } : {}) },
        }),
      ),
  });
  const move = useMutation({
    mutationFn: async ({ slug, parent }: { slug: string; parent: string }) =>
      unwrap(
        await api.catalog.POST('/categories/{slug}/move', {
          params: { path: { slug } },
          body: { parent_id: parent === '' ? null : parent },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['categories'] }),
  });
  const field = (e: FormEvent<HTMLFormElement>, name: string): string =>
    String(new FormData(e.currentTarget).get(name) ?? '');
  return (
    <section>
      <h1>{t('staff.catalog.title')}</h1>
      <h2>{t('staff.catalog.create')}</h2>
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
      <h2>{t('staff.catalog.move')}</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          move.mutate({ slug: field(e, 'slug'), parent: field(e, 'parent') });
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
          {t('staff.catalog.newParent')}{' '}
          <select name="parent">
            <option value="">{t('staff.catalog.root')}</option>
            {categories.map((c) => (
              <option key={c.id} value={c.id}>
                {c.label}
              </option>
            ))}
          </select>
        </label>{' '}
        <button type="submit" disabled={move.isPending}>
          {t('staff.catalog.move')}
        </button>
      </form>
      {move.isSuccess && <p role="status">{t('staff.catalog.moved', { name: move.data.name })}</p>}
      {move.isError && <ErrorView error={move.error} />}
      <h2>{t('staff.catalog.edit')}</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          edit.mutate({
            id: field(e, 'id').trim(),
            name: field(e, 'name').trim(),
            price: field(e, 'price').trim(),
          });
        }}
      >
        <label>
          {t('staff.catalog.productId')} <input name="id" required pattern="[0-9a-f]{24}" />
        </label>{' '}
        <label>
          {t('staff.catalog.newName')} <input name="name" />
        </label>{' '}
        <label>
          {t('staff.catalog.newPrice')} <input name="price" pattern="\d{1,9}(\.\d{1,2})?" />
        </label>{' '}
        <button type="submit" disabled={edit.isPending}>
          {t('staff.catalog.save')}
        </button>
      </form>
      {edit.isSuccess && (
        <p role="status">
          <Link to={`/p/${edit.data.id}`}>
            {t('staff.catalog.saved', { name: edit.data.name, version: edit.data.version })}
          </Link>
        </p>
      )}
      {edit.isError && <ErrorView error={edit.error} />}
    </section>
  );
}
