import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { validate } from '@mw/platform';
import { LowStockQuery, ProductParams, RestockBody, SetStockBody, StockLevelSchema, StockParams } from './stock.dto';
import { StockService } from './stock.service';
import { StockLevel } from './stock';

@ApiTags('stock')
@Controller()
export class StockController {
  constructor(private readonly stock: StockService) {}

  @Post('stock/:productId/:zone/restock')
  @ApiOperation({ summary: 'Receive units of a product in a zone (creates the stock document on first restock)' })
  @ApiBody({ schema: z.toJSONSchema(RestockBody) as object })
  @ApiOkResponse({ schema: StockLevelSchema })
  restock(@Param() params: unknown, @Body() body: unknown): Promise<StockLevel> {
    const p = validate(StockParams, params, 'params');
    const b = validate(RestockBody, body, 'body');
    return this.stock.restock(p.productId, p.zone, b.qty, b.reason);
  }

  @Put('stock/:productId/:zone')
  @ApiOperation({ summary: 'Set the available level after a stock-take; the difference is an adjust movement in the ledger' })
  @ApiBody({ schema: z.toJSONSchema(SetStockBody) as object })
  @ApiOkResponse({ schema: StockLevelSchema })
  set(@Param() params: unknown, @Body() body: unknown): Promise<StockLevel> {
    const p = validate(StockParams, params, 'params');
    const b = validate(SetStockBody, body, 'body');
    return this.stock.set(p.productId, p.zone, b.available, b.reason);
  }

  @Get('stock/:productId')
  @ApiOperation({ summary: 'Stock of a product in every zone (read from the primary)' })
  @ApiOkResponse({ schema: { type: 'array', items: StockLevelSchema } })
  ofProduct(@Param() params: unknown): Promise<StockLevel[]> {
    return this.stock.ofProduct(validate(ProductParams, params, 'params').productId);
  }

  @Get('low-stock')
  @ApiOperation({ summary: 'Items of a zone at or below a threshold of available units, lowest first' })
  @ApiQuery({ name: 'zone', required: true, example: 'MSK' })
  @ApiQuery({ name: 'threshold', required: false, type: Number })
  @ApiQuery({ name: 'limit', required: false, type: Number })
  lowStock(@Query() query: unknown): Promise<unknown> {
    const q = validate(LowStockQuery, query, 'query');
    return this.stock.lowStock(q.zone, q.threshold, q.limit);
  }
}
