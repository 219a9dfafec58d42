import { access, endpoint } from '@mw/platform';
import { IdParams } from '../shared/http-schemas';
import {
  CreateProductBody,
  PatchProductBody,
  productExample,
  ProductView,
  ReplaceProductBody,
} from './products.dto';

const writers = access.roles('catalog_manager');

const createBodyExample = {
  name: 'Samsung Galaxy S24 128 ГБ черный',
  category_id: '65f1a2b3c4d5e6f708190003',
  price: '79999.90',
  attributes: { color: 'черный', ram_gb: '8' },
  pricing: { list: '89999.90', retail: '79999.90' },
};

export const createProduct = endpoint({
  operationId: 'createProduct',
  method: 'POST',
  path: '/products',
  tag: 'products',
  summary: 'Create a product',
  description:
    'Prices are decimal strings in roubles ("1299.90"). The category must exist (422 CATALOG.UNKNOWN_CATEGORY naming `body.category_id`). ' +
    'The change and its ProductCreated event are one atomic write (outbox).',
  access: writers,
  body: CreateProductBody,
  bodyExample: createBodyExample,
  response: { status: 201, description: 'Created', schema: ProductView, example: productExample },
});

export const getProduct = endpoint({
  operationId: 'getProduct',
  method: 'GET',
  path: '/products/:id',
  tag: 'products',
  summary: 'A product from the write model (MongoDB, primary)',
  access: access.public,
  params: IdParams,
  response: { status: 200, description: 'The product', schema: ProductView, example: productExample },
});

export const replaceProduct = endpoint({
  operationId: 'replaceProduct',
  method: 'PUT',
  path: '/products/:id',
  tag: 'products',
  summary: 'Replace every field of a product',
  description:
    'Fields left out take their defaults (no attributes, no pricing). 409 CATALOG.VERSION_CONFLICT when the product kept changing concurrently.',
  access: writers,
  params: IdParams,
  body: ReplaceProductBody,
  bodyExample: createBodyExample,
  response: {
    status: 200,
    description: 'The product after the change',
    schema: ProductView,
    example: { ...productExample, version: 2 },
  },
  errors: [409],
});

export const updateProduct = endpoint({
  operationId: 'updateProduct',
  method: 'PATCH',
  path: '/products/:id',
  tag: 'products',
  summary: 'Change some fields of a product (pricing: null removes it)',
  description:
    'Only the given fields change; a repeat of the same change writes nothing. 409 CATALOG.VERSION_CONFLICT when the product kept changing concurrently.',
  access: writers,
  params: IdParams,
  body: PatchProductBody,
  bodyExample: { price: '74999.00' },
  response: {
    status: 200,
    description: 'The product after the change',
    schema: ProductView,
    example: { ...productExample, price: '74999.00', version: 2 },
  },
  errors: [409],
});

export const deleteProduct = endpoint({
  operationId: 'deleteProduct',
  method: 'DELETE',
  path: '/products/:id',
  tag: 'products',
  summary: 'Delete a product (idempotent: an id that is already gone answers 204 too)',
  access: writers,
  params: IdParams,
  response: { status: 204, description: 'Deleted' },
  errors: [409],
});
