import { ObjectId } from 'mongodb';
import { Catalog } from '@mw/contracts';
import { AncestorDoc, CategoryDoc } from '../shared/catalog-db';
import { AncestorRef, Category } from './category';

export function toCategory(doc: CategoryDoc): Category {
  return {
    id: doc._id.toHexString(),
    slug: doc.slug,
    name: doc.name,
    parent_id: doc.parent?.toHexString() ?? null,
    ancestors: doc.ancestors.map((a) => ({ id: a._id.toHexString(), slug: a.slug, name: a.name })),
    version: doc.version,
  };
}

export const toAncestorDocs = (refs: readonly AncestorRef[]): AncestorDoc[] =>
  refs.map((a) => ({ _id: new ObjectId(a.id), slug: a.slug, name: a.name }));

export function toSnapshot(c: Category): Catalog.CategorySnapshot {
  return {
    category_id: c.id,
    version: c.version,
    name: c.name,
    slug: c.slug,
    parent_id: c.parent_id,
    ancestors: [...c.ancestors],
  };
}
