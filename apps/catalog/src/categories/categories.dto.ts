import { z } from 'zod';
import { ObjectIdParam, SlugParam } from '../shared/http-schemas';
import { CategoryTreeNode as TreeNode } from './category';

/** Checked as sent (so the documented limits are exact), stored trimmed. */
const Name = z.string().max(200).regex(/\S/, 'must not be blank').trim().meta({ example: 'Смартфоны' });
const ParentId = ObjectIdParam.nullable().meta({ description: 'The parent category; null for a root' });

export const CreateCategoryBody = z.strictObject({
  name: Name,
  slug: SlugParam,
  parent_id: ParentId.default(null),
});
export const RenameCategoryBody = z.strictObject({ name: Name });
export const MoveCategoryBody = z.strictObject({ parent_id: ParentId });

const AncestorRef = z.object({ id: ObjectIdParam, slug: SlugParam, name: z.string() });

/** A category of the write model. */
export const CategorySchema = z
  .object({
    id: ObjectIdParam,
    slug: SlugParam,
    name: z.string(),
    parent_id: ObjectIdParam.nullable(),
    ancestors: z.array(AncestorRef).meta({ description: 'Root first, the parent last' }),
    version: z.number().int().min(1),
  })
  .meta({ description: 'A category' });

/** A category with its breadcrumbs (root … itself) and its direct children. */
export const CategoryViewSchema = CategorySchema.extend({
  breadcrumbs: z.array(AncestorRef),
  children: z.array(AncestorRef),
}).meta({ description: 'A category with breadcrumbs and children' });

export const CategoryTreeNode: z.ZodType<TreeNode> = z
  .lazy(() =>
    z.object({ id: ObjectIdParam, slug: SlugParam, name: z.string(), children: z.array(CategoryTreeNode) }),
  )
  .meta({ id: 'CategoryTreeNode', description: 'A category and its sub-categories, sorted by name' });
export const CategoryTree = z.array(CategoryTreeNode);

const root = { id: '65f1a2b3c4d5e6f708190001', slug: 'elektronika', name: 'Электроника' };
const phones = { id: '65f1a2b3c4d5e6f708190002', slug: 'telefony', name: 'Телефоны' };
const smartphones = { id: '65f1a2b3c4d5e6f708190003', slug: 'smartfony', name: 'Смартфоны' };
const android = { id: '65f1a2b3c4d5e6f708190004', slug: 'android', name: 'Android' };

export const categoryExample = {
  ...smartphones,
  parent_id: phones.id,
  ancestors: [root, phones],
  version: 1,
};
/** Smartphones moved directly under the root. */
export const movedCategoryExample = { ...categoryExample, parent_id: root.id, ancestors: [root], version: 2 };
export const categoryViewExample = {
  ...categoryExample,
  breadcrumbs: [root, phones, smartphones],
  children: [android],
};
export const categoryTreeExample = [
  {
    ...root,
    children: [{ ...phones, children: [{ ...smartphones, children: [{ ...android, children: [] }] }] }],
  },
];
