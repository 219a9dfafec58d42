import { z } from 'zod';
import { defineMessage } from '../common/message';
import { AggregateVersion, ObjectIdHex } from '../common/primitives';

export const CategorySlug = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lower-case words joined by hyphens');

export const CategoryAncestor = z.object({ id: ObjectIdHex, slug: CategorySlug, name: z.string().min(1).max(200) });

export const CategorySnapshot = z.object({
  category_id: ObjectIdHex,
  version: AggregateVersion,
  name: z.string().min(1).max(200),
  slug: CategorySlug,
  parent_id: ObjectIdHex.nullable(),
  /** Root first, parent last. */
  ancestors: z.array(CategoryAncestor).max(32),
});
export type CategorySnapshot = z.infer<typeof CategorySnapshot>;

export const CategoryCreated = defineMessage('CategoryCreated', CategorySnapshot, 'category_id');
export const CategoryRenamed = defineMessage(
  'CategoryRenamed',
  CategorySnapshot.extend({ previous_name: z.string() }),
  'category_id',
);
export const CategoryMoved = defineMessage(
  'CategoryMoved',
  CategorySnapshot.extend({ previous_parent_id: ObjectIdHex.nullable() }),
  'category_id',
);
export const CategoryDeleted = defineMessage(
  'CategoryDeleted',
  z.object({ category_id: ObjectIdHex, version: AggregateVersion, slug: CategorySlug }),
  'category_id',
);

export const categoryMessages = [CategoryCreated, CategoryRenamed, CategoryMoved, CategoryDeleted] as const;
