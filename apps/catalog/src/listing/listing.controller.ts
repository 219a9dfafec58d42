import { Controller } from '@nestjs/common';
import { Endpoint, Input, InputOf } from '@mw/platform';
import { ListingPage, ProductCard, toCard, toListingItem } from './listing.dto';
import { getProductCard, listNewInCategory } from './listing.endpoints';
import { ListingService } from './listing.service';

@Controller()
export class ListingController {
  constructor(private readonly listing: ListingService) {}

  @Endpoint(listNewInCategory)
  async newest(@Input() input: InputOf<typeof listNewInCategory>): Promise<ListingPage> {
    const { limit, cursor } = input.query;
    const page = await this.listing.newestInCategory(input.params.slug, limit, cursor);
    return { category: page.category, items: page.items.map(toListingItem), next_cursor: page.next_cursor };
  }

  @Endpoint(getProductCard)
  async card(@Input() input: InputOf<typeof getProductCard>): Promise<ProductCard> {
    return toCard(await this.listing.card(input.params.id));
  }
}
