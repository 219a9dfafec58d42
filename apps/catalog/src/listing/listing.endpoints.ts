import { access, endpoint } from '@mw/platform';
import { productExample } from '../products/products.dto';
import { IdParams, SlugParams } from '../shared/http-schemas';
import { listingExample, ListingPage, ListingQuery, ProductCard } from './listing.dto';

export const listNewInCategory = endpoint({
  operationId: 'listNewInCategory',
  method: 'GET',
  path: '/categories/:slug/products',
  tag: 'read side (Cassandra)',
  summary: 'New in this category and its sub-categories, newest first (Cassandra); opaque cursor',
  description:
    'Eventually consistent: fed by the projector from catalog.products.v1. A malformed cursor is 422 CATALOG.INVALID_CURSOR; an unknown slug 404 CATALOG.CATEGORY_NOT_FOUND.',
  access: access.public,
  rateLimit: 'reads',
  params: SlugParams,
  query: ListingQuery,
  response: { status: 200, description: 'One page', schema: ListingPage, example: listingExample },
});

export const getProductCard = endpoint({
  operationId: 'getProductCard',
  method: 'GET',
  path: '/products/:id/card',
  tag: 'read side (Cassandra)',
  summary: 'Product card from the Cassandra read model (eventually consistent)',
  description:
    '404 CATALOG.PRODUCT_NOT_FOUND until the projector has seen the product, and after its deletion.',
  access: access.public,
  params: IdParams,
  response: { status: 200, description: 'The card', schema: ProductCard, example: productExample },
});
