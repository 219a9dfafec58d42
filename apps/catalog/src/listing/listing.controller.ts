import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { validate } from '@mw/platform';
import { idParam, price, slugParam } from '../shared/http-schemas';
import { ListingService } from './listing.service';

const ListingQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'must be a whole number 1..100')
    .transform(Number)
    .pipe(z.number().int().min(1).max(100))
    .default(20),
  cursor: z.string().max(200).optional(),
});

@ApiTags('read side (Cassandra)')
@Controller()
export class ListingController {
  constructor(private readonly listing: ListingService) {}

  @Get('categories/:slug/products')
  @ApiOperation({
    summary: 'New in this category (and its sub-categories), newest first, from Cassandra; opaque cursor',
  })
  @ApiQuery({ name: 'limit', required: false, example: 20 })
  @ApiQuery({ name: 'cursor', required: false })
  @ApiResponse({ status: 404, description: 'CATALOG.CATEGORY_NOT_FOUND' })
  async newest(@Param('slug') slug: string, @Query() query: unknown): Promise<unknown> {
    const q = validate(ListingQuery, query, 'query');
    const page = await this.listing.newestInCategory(slugParam(slug), q.limit, q.cursor);
    return {
      category: page.category,
      items: page.items.map((r) => ({
        id: r.product_id,
        name: r.name,
        category_id: r.product_category_id,
        price: price(r.price),
        currency: 'RUB',
        attributes: r.attributes,
        pct_savings: r.pct_savings,
        created_at: r.created_at.toISOString(),
        version: r.version,
      })),
      next_cursor: page.next_cursor,
    };
  }

  @Get('products/:id/card')
  @ApiOperation({ summary: 'Product card from the Cassandra read model (eventually consistent)' })
  @ApiResponse({ status: 404, description: 'CATALOG.PRODUCT_NOT_FOUND' })
  async card(@Param('id') id: string): Promise<unknown> {
    const p = await this.listing.card(idParam(id));
    return {
      id: p.product_id,
      name: p.name,
      category_id: p.category_id,
      ancestors: p.ancestors,
      price: price(p.price),
      currency: p.currency,
      attributes: p.attributes,
      ...(p.list_price !== null && p.retail_price !== null
        ? {
            pricing: {
              list: price(p.list_price),
              retail: price(p.retail_price),
              pct_savings: p.pct_savings ?? 0,
            },
          }
        : {}),
      version: p.version,
      created_at: p.created_at.toISOString(),
      updated_at: p.updated_at.toISOString(),
    };
  }
}
