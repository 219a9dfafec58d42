import { AppError } from '@mw/platform';

/** The catalog's stable error codes. */
export const CatalogErrors = {
  categoryNotFound: (what: string) =>
    AppError.notFound('CATALOG.CATEGORY_NOT_FOUND', `category ${what} not found`),
  parentNotFound: (id: string) =>
    AppError.unprocessable(
      [{ field: 'body.parent_id', message: `category ${id} does not exist` }],
      'CATALOG.PARENT_NOT_FOUND',
    ),
  unknownCategory: (field: string, id: string) =>
    AppError.unprocessable([{ field, message: `category ${id} does not exist` }], 'CATALOG.UNKNOWN_CATEGORY'),
  duplicateSlug: (slug: string) =>
    AppError.conflict('CATALOG.DUPLICATE_SLUG', `a category with slug "${slug}" already exists`),
  moveIntoOwnSubtree: (slug: string) =>
    AppError.conflict(
      'CATALOG.MOVE_INTO_OWN_SUBTREE',
      `category "${slug}" cannot be moved under itself or one of its descendants`,
    ),
  moveInProgress: (slug: string) =>
    AppError.conflict(
      'CATALOG.MOVE_IN_PROGRESS',
      `category "${slug}" was not moved: another category move is in progress; retry later`,
    ),
  concurrentModification: (what: string) =>
    AppError.conflict('CATALOG.CONCURRENT_MODIFICATION', `${what} kept changing concurrently; retry later`),
  categoryNotEmpty: (slug: string, why: string) =>
    AppError.conflict('CATALOG.CATEGORY_NOT_EMPTY', `category "${slug}" is not empty: ${why}`),
  treeTooDeep: (depth: number) =>
    AppError.unprocessable(
      [{ field: 'body.parent_id', message: `the tree would be ${depth} levels deep (max 8)` }],
      'CATALOG.TREE_TOO_DEEP',
    ),
  productNotFound: (id: string) => AppError.notFound('CATALOG.PRODUCT_NOT_FOUND', `product ${id} not found`),
  versionConflict: (id: string, expected: number) =>
    AppError.conflict(
      'CATALOG.VERSION_CONFLICT',
      `product ${id} is not at version ${expected} (changed concurrently)`,
    ),
  invalidCursor: () =>
    AppError.unprocessable(
      [{ field: 'query.cursor', message: 'malformed or foreign cursor' }],
      'CATALOG.INVALID_CURSOR',
    ),
};
