import { Controller } from '@nestjs/common';
import { Endpoint, Input, InputOf } from '@mw/platform';
import { ProductView, toView } from './products.dto';
import {
  createProduct,
  deleteProduct,
  getProduct,
  replaceProduct,
  updateProduct,
} from './products.endpoints';
import { ProductsService } from './products.service';

@Controller()
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @Endpoint(createProduct)
  async create(@Input() input: InputOf<typeof createProduct>): Promise<ProductView> {
    return toView((await this.products.create(input.body)).product);
  }

  @Endpoint(getProduct)
  async get(@Input() input: InputOf<typeof getProduct>): Promise<ProductView> {
    return toView(await this.products.get(input.params.id));
  }

  @Endpoint(replaceProduct)
  async replace(@Input() input: InputOf<typeof replaceProduct>): Promise<ProductView> {
    return toView(
      await this.products.change(input.params.id, { ...input.body, pricing: input.body.pricing ?? null }),
    );
  }

  @Endpoint(updateProduct)
  async update(@Input() input: InputOf<typeof updateProduct>): Promise<ProductView> {
    return toView(await this.products.change(input.params.id, input.body));
  }

  @Endpoint(deleteProduct)
  async delete(@Input() input: InputOf<typeof deleteProduct>): Promise<void> {
    await this.products.delete(input.params.id);
  }
}
