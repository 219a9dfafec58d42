import { Controller } from '@nestjs/common';
import { Endpoint, Input, InputOf } from '@mw/platform';
import { toView } from '../products/products.dto';
import { SearchPage, searchProducts } from './search.endpoints';
import { SearchService } from './search.service';

@Controller()
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Endpoint(searchProducts)
  async find(@Input() input: InputOf<typeof searchProducts>): Promise<SearchPage> {
    const page = await this.search.search(input.query);
    return { items: page.items.map(toView), next_cursor: page.next_cursor };
  }
}
