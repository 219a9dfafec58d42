import { access, endpoint } from '@mw/platform';
import { SlugParams } from '../shared/http-schemas';
import {
  categoryExample,
  CategorySchema,
  CategoryTree,
  categoryTreeExample,
  categoryViewExample,
  CategoryViewSchema,
  CreateCategoryBody,
  MoveCategoryBody,
  movedCategoryExample,
  RenameCategoryBody,
} from './categories.dto';

const writers = access.roles('catalog_manager');

export const createCategory = endpoint({
  operationId: 'createCategory',
  method: 'POST',
  path: '/categories',
  tag: 'categories',
  summary: 'Create a category under a parent (parent_id null: a root)',
  description:
    '409 CATALOG.DUPLICATE_SLUG when the slug is taken; 422 CATALOG.PARENT_NOT_FOUND or CATALOG.TREE_TOO_DEEP (more than 8 levels) naming `body.parent_id`.',
  access: writers,
  body: CreateCategoryBody,
  bodyExample: { name: 'Смартфоны', slug: 'smartfony', parent_id: '65f1a2b3c4d5e6f708190002' },
  response: { status: 201, description: 'Created', schema: CategorySchema, example: categoryExample },
  errors: [409],
});

export const getCategoryTree = endpoint({
  operationId: 'getCategoryTree',
  method: 'GET',
  path: '/categories',
  tag: 'categories',
  summary: 'The whole category tree',
  access: access.public,
  response: {
    status: 200,
    description: 'Root categories with their sub-categories',
    schema: CategoryTree,
    example: categoryTreeExample,
  },
});

export const getCategory = endpoint({
  operationId: 'getCategory',
  method: 'GET',
  path: '/categories/:slug',
  tag: 'categories',
  summary: 'A category by slug with breadcrumbs and children',
  access: access.public,
  params: SlugParams,
  response: {
    status: 200,
    description: 'The category',
    schema: CategoryViewSchema,
    example: categoryViewExample,
  },
});

export const renameCategory = endpoint({
  operationId: 'renameCategory',
  method: 'PATCH',
  path: '/categories/:slug',
  tag: 'categories',
  summary: 'Rename a category (descendants’ breadcrumbs follow)',
  description: '409 CATALOG.CONCURRENT_MODIFICATION when the category kept changing concurrently.',
  access: writers,
  params: SlugParams,
  body: RenameCategoryBody,
  bodyExample: { name: 'Смартфоны и телефоны' },
  response: {
    status: 200,
    description: 'The category after the change',
    schema: CategorySchema,
    example: { ...categoryExample, name: 'Смартфоны и телефоны', version: 2 },
  },
  errors: [409],
});

export const moveCategory = endpoint({
  operationId: 'moveCategory',
  method: 'POST',
  path: '/categories/:slug/move',
  tag: 'categories',
  summary: 'Move the subtree under another parent; descendants and their products follow',
  description:
    '409 CATALOG.MOVE_INTO_OWN_SUBTREE (under itself or a descendant), CATALOG.MOVE_IN_PROGRESS (another move holds the tree, retry later), ' +
    'CATALOG.CONCURRENT_MODIFICATION; 422 CATALOG.PARENT_NOT_FOUND or CATALOG.TREE_TOO_DEEP naming `body.parent_id`.',
  access: writers,
  params: SlugParams,
  body: MoveCategoryBody,
  bodyExample: { parent_id: '65f1a2b3c4d5e6f708190001' },
  response: {
    status: 200,
    description: 'The moved category',
    schema: CategorySchema,
    example: movedCategoryExample,
  },
  errors: [409],
});

export const deleteCategory = endpoint({
  operationId: 'deleteCategory',
  method: 'DELETE',
  path: '/categories/:slug',
  tag: 'categories',
  summary: 'Delete an empty category',
  description:
    '409 CATALOG.CATEGORY_NOT_EMPTY while it has sub-categories or products; CATALOG.CONCURRENT_MODIFICATION.',
  access: writers,
  params: SlugParams,
  response: { status: 204, description: 'Deleted' },
  errors: [409],
});
