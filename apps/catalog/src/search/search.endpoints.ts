import { z } from 'zod';
import { access, endpoint } from '@mw/platform';
import { productExample, ProductView } from '../products/products.dto';
import { SearchQuery } from './search.dto';

export const SearchPage = z.object({
  items: z.array(ProductView),
  next_cursor: z.string().nullable().meta({ description: 'Cursor of the next page; null on the last page' }),
});
export type SearchPage = z.output<typeof SearchPage>;

export const searchProducts = endpoint({
  operationId: 'searchProducts',
  method: 'GET',
  path: '/products',
  tag: 'products',
  summary: 'Search products (MongoDB, may read from secondaries); keyset cursor, stable under inserts',
  description:
    'Filters by category (with its sub-categories unless include_subcategories=false), price range and attributes. ' +
    'An unknown category is 422 CATALOG.UNKNOWN_CATEGORY, a cursor of another sort or a forged one 422 CATALOG.INVALID_CURSOR.',
  access: access.public,
  rateLimit: 'reads',
  query: SearchQuery,
  response: {
    status: 200,
    description: 'One page, in the requested order',
    schema: SearchPage,
    example: {
      items: [productExample],
      next_cursor: 'WyJwcmljZV9hc2MiLDc5OTk5OTAsIjY1ZjFhMmIzYzRkNWU2ZjcwODE5MmEzYiJd',
    },
  },
});
