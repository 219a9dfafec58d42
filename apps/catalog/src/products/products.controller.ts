import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { validate } from '@mw/platform';
import { idParam, openApi } from '../shared/http-schemas';
import { CreateProductBody, PatchProductBody, ProductView, ReplaceProductBody, toView } from './products.dto';
import { ProductsService } from './products.service';

@ApiTags('products')
@Controller('products')
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @Post()
  @ApiOperation({ summary: 'Create a product (prices are decimal strings in RUB, e.g. "1299.90")' })
  @ApiBody({ schema: openApi(CreateProductBody) })
  @ApiResponse({ status: 201, description: 'Created' })
  @ApiResponse({ status: 400, description: 'Invalid input or unknown category (body names the field)' })
  async create(@Body() body: unknown): Promise<ProductView> {
    return toView((await this.products.create(validate(CreateProductBody, body, 'body'))).product);
  }

  @Get(':id')
  @ApiOperation({ summary: 'A product from the write model (MongoDB, primary)' })
  @ApiResponse({ status: 404, description: 'CATALOG.PRODUCT_NOT_FOUND' })
  async get(@Param('id') id: string): Promise<ProductView> {
    return toView(await this.products.get(idParam(id)));
  }

  @Put(':id')
  @ApiOperation({ summary: 'Replace a product' })
  @ApiBody({ schema: openApi(ReplaceProductBody) })
  async replace(@Param('id') id: string, @Body() body: unknown): Promise<ProductView> {
    const input = validate(ReplaceProductBody, body, 'body');
    return toView(await this.products.change(idParam(id), { ...input, pricing: input.pricing ?? null }));
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change some fields of a product (pricing: null removes it)' })
  @ApiBody({ schema: openApi(PatchProductBody) })
  async patch(@Param('id') id: string, @Body() body: unknown): Promise<ProductView> {
    return toView(await this.products.change(idParam(id), validate(PatchProductBody, body, 'body')));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a product (idempotent)' })
  async delete(@Param('id') id: string): Promise<void> {
    await this.products.delete(idParam(id));
  }
}
