import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppError, LOGGER } from '@mw/platform';
import { CARTS_CONFIG } from '../config.token';
import type { CartsConfig } from '../config';
import { canEditItems, Cart, CartLine, CartView, statusAfterOrder, withTotal } from './cart';
import { CartsRepository } from './carts.repository';

@Injectable()
export class CartsService {
  constructor(
    private readonly repo: CartsRepository,
    @Inject(CARTS_CONFIG) private readonly config: Readonly<CartsConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async create(input: { zone: string; user_id?: string; session_id?: string }): Promise<CartView> {
    if (!this.config.ZONES.includes(input.zone)) {
      throw AppError.validation([{ field: 'body.zone', message: `unknown zone ${input.zone} (served: ${this.config.ZONES.join(', ')})` }], 'CARTS.UNKNOWN_ZONE');
    }
    const now = new Date();
    const cart: Cart = {
      cart_id: randomUUID(),
      user_id: input.user_id ?? null,
      // A guest is identified by a session; a user cart may have one too.
      session_id: input.session_id ?? (input.user_id ? null : randomUUID()),
      zone: input.zone,
      status: 'active',
      items: {},
      created_at: now,
      updated_at: now,
    };
    await this.repo.create(cart);
    return withTotal(cart);
  }

  async get(cartId: string): Promise<CartView> {
    return withTotal(await this.load(cartId));
  }

  async putItem(cartId: string, productId: string, line: CartLine): Promise<CartView> {
    if (!(await this.repo.putItem(cartId, productId, line, new Date()))) await this.refuseEdit(cartId);
    return this.get(cartId);
  }

  async removeItem(cartId: string, productId: string): Promise<CartView> {
    if (!(await this.repo.removeItem(cartId, productId, new Date()))) await this.refuseEdit(cartId);
    return this.get(cartId);
  }

  listByUser(userId: string, status: Cart['status'], limit: number): Promise<string[]> {
    return this.repo.listByUser(userId, status, limit);
  }

  /** Saga step 5: the order outcome moves the cart out of checkout; a replay finds it moved and does nothing. */
  async onOrderOutcome(type: 'OrderConfirmed' | 'OrderCancelled', cartId: string): Promise<void> {
    const cart = await this.repo.get(cartId);
    if (!cart) {
      this.logger.warn({ cart_id: cartId, type }, 'order outcome for an unknown or expired cart');
      return;
    }
    const to = statusAfterOrder(type);
    const moved = await this.repo.transition(cart, 'checking_out', to, new Date());
    this.logger.info({ cart_id: cartId, type, to, moved }, moved ? 'cart status changed' : 'cart not in checkout; nothing to do');
  }

  private async load(cartId: string): Promise<Cart> {
    const cart = await this.repo.get(cartId);
    if (!cart) throw AppError.notFound('CARTS.CART_NOT_FOUND', `cart ${cartId} not found or expired`);
    return cart;
  }

  private async refuseEdit(cartId: string): Promise<never> {
    const cart = await this.load(cartId);
    if (canEditItems(cart.status)) throw new AppError('CARTS.CONCURRENT_CHANGE', 'conflict', 'the cart changed concurrently; retry');
    throw AppError.conflict('CARTS.NOT_EDITABLE', `cart is ${cart.status}; items can change only while it is active`);
  }
}
