import type { ApiDescription } from '@mw/platform';
import { CategoriesController } from './categories/categories.controller';
import { ListingController } from './listing/listing.controller';
import { ProductsController } from './products/products.controller';
import { SearchController } from './search/search.controller';

/** The catalog API process (ADR 0007): reads are public, every write needs the role catalog_manager. */
export const api: ApiDescription = {
  name: 'catalog',
  title: 'Mobile World — catalog',
  description:
    'Products and the category tree (write side MongoDB, events through the outbox) and the Cassandra read side ' +
    '(new in category, product cards). Every read is public; every write needs a bearer token with the role catalog_manager ' +
    'and is rate-limited per caller. Prices are decimal strings in roubles.',
  version: '1',
  controllers: [CategoriesController, SearchController, ListingController, ProductsController],
};
