import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { validate } from '@mw/platform';
import { ProductView, toView } from '../products/products.dto';
import { SORTS } from './search-query';
import { SearchQuery } from './search.dto';
import { SearchService } from './search.service';

@ApiTags('products')
@Controller('products')
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Get()
  @ApiOperation({
    summary: 'Search products (MongoDB; may read from secondaries). Keyset cursor, stable under inserts.',
  })
  @ApiQuery({ name: 'category_id', required: false })
  @ApiQuery({ name: 'include_subcategories', required: false, enum: ['true', 'false'] })
  @ApiQuery({ name: 'min_price', required: false, example: '1000.00' })
  @ApiQuery({ name: 'max_price', required: false, example: '50000.00' })
  @ApiQuery({ name: 'attributes', required: false, example: 'color:black,ram_gb:8' })
  @ApiQuery({ name: 'sort', required: false, enum: SORTS })
  @ApiQuery({ name: 'limit', required: false, example: 20 })
  @ApiQuery({ name: 'cursor', required: false })
  @ApiResponse({ status: 400, description: 'Invalid parameter (named in the body), e.g. price[$gt]=' })
  async find(@Query() query: unknown): Promise<{ items: ProductView[]; next_cursor: string | null }> {
    const page = await this.search.search(validate(SearchQuery, query, 'query'));
    return { items: page.items.map(toView), next_cursor: page.next_cursor };
  }
}
