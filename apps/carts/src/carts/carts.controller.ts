import { Controller } from '@nestjs/common';
import { type Caller, CurrentCaller, Endpoint, Input, type InputOf } from '@mw/platform';
import { CartView } from './cart-view';
import { createCart, getCart, listCarts, putItem, removeItem } from './carts.endpoints';
import { CartsService } from './carts.service';
import { ownerOf, userIdOf } from './owner';

@Controller()
export class CartsController {
  constructor(private readonly carts: CartsService) {}

  @Endpoint(createCart)
  create(@Input() input: InputOf<typeof createCart>, @CurrentCaller() caller: Caller): Promise<CartView> {
    return this.carts.create(input.body.zone, ownerOf(caller));
  }

  @Endpoint(getCart)
  get(@Input() input: InputOf<typeof getCart>, @CurrentCaller() caller: Caller): Promise<CartView> {
    return this.carts.get(input.params.id, ownerOf(caller));
  }

  @Endpoint(listCarts)
  async list(@Input() input: InputOf<typeof listCarts>, @CurrentCaller() caller: Caller): Promise<{ cart_ids: string[] }> {
    return { cart_ids: await this.carts.listByUser(userIdOf(caller), input.query.status, input.query.limit) };
  }

  @Endpoint(putItem)
  putItem(@Input() input: InputOf<typeof putItem>, @CurrentCaller() caller: Caller): Promise<CartView> {
    return this.carts.putItem(input.params.id, ownerOf(caller), input.params.product_id, input.body.qty);
  }

  @Endpoint(removeItem)
  removeItem(@Input() input: InputOf<typeof removeItem>, @CurrentCaller() caller: Caller): Promise<CartView> {
    return this.carts.removeItem(input.params.id, ownerOf(caller), input.params.product_id);
  }
}
