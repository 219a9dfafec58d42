import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppError, LOGGER } from '@mw/platform';
import { cartActivity } from '../activity/activity';
import { ActivityService } from '../activity/activity.service';
import { CARTS_CONFIG } from '../config.token';
import type { CartsConfig } from '../config';
import type { CqlStatement } from '../cql';
import { exceedsKnownStock, StockLevel } from '../products/product';
import { ProductsRepository } from '../products/products.repository';
import {
  Cart,
  CartOwner,
  isExpired,
  isOwnedBy,
  newCart,
  OrderOutcome,
  ownerColumns,
  putLine,
  statusAfterOutcome,
  touched,
  withoutLine,
} from './cart';
import { cartView, CartView } from './cart-view';
import { CartsRepository } from './carts.repository';

/** How often a write that lost its revision race is re-decided on a fresh read before answering 409. */
const MAX_ATTEMPTS = 5;

@Injectable()
export class CartsService {
  constructor(
    private readonly repo: CartsRepository,
    private readonly products: ProductsRepository,
    private readonly activity: ActivityService,
    @Inject(CARTS_CONFIG) private readonly config: Readonly<CartsConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** A new cart of the caller: a user cart owned by the token's subject, or a guest cart owned by the guest session. */
  async create(zone: string, owner: CartOwner): Promise<CartView> {
    if (!this.config.ZONES.includes(zone)) {
      // A well-formed zone code the deployment does not serve (ZONES is configuration the document cannot state): 422.
      throw AppError.unprocessable(
        [{ field: 'body.zone', message: `unknown zone ${zone} (served: ${this.config.ZONES.join(', ')})` }],
        'CARTS.UNKNOWN_ZONE',
      );
    }
    await this.refuseBeyondCap(owner);
    const cart = newCart(
      { cart_id: randomUUID(), ...ownerColumns(owner), zone },
      new Date(),
      this.config.CART_TTL_SECONDS,
    );
    await this.repo.create(cart);
    if (owner.kind === 'user') await this.activity.record(cartActivity.created(owner.userId, cart));
    return this.view(cart);
  }

  /**
   * An owner may hold CARTS_MAX_ACTIVE_PER_OWNER active carts (verified against the cart rows, like
   * every list). Checked before the insert, not atomically: concurrent creates of one owner may pass
   * it together, so the cap holds up to that owner's concurrency (which the write limit bounds).
   */
  private async refuseBeyondCap(owner: CartOwner): Promise<void> {
    const max = this.config.CARTS_MAX_ACTIVE_PER_OWNER;
    const active =
      owner.kind === 'user'
        ? await this.repo.cartsOfUser(owner.userId, 'active', max)
        : await this.repo.cartsOfSession(owner.sessionId, ['active'], max);
    if (active.length >= max) {
      throw AppError.conflict(
        'CARTS.TOO_MANY_CARTS',
        `this owner already has ${max} active carts (the most allowed); check one out or let it expire`,
      );
    }
  }

  async get(cartId: string, owner: CartOwner): Promise<CartView> {
    return this.view(await this.load(cartId, owner));
  }

  /** Puts one product at the quantity given; name and price come from the carts' product table. */
  async putItem(cartId: string, owner: CartOwner, productId: string, qty: number): Promise<CartView> {
    const product = await this.products.get(productId);
    if (!product) {
      throw new AppError(
        'CARTS.PRODUCT_NOT_FOUND',
        'not_found',
        `product ${productId} is not sold (unknown or deleted)`,
        [{ field: 'params.product_id', message: 'not in the catalog' }],
      );
    }
    const line = { name: product.name, qty, unit_price: product.price };
    const cart = await this.mutate(cartId, owner, async (c) => {
      const level = await this.products.stock(productId, c.zone);
      if (exceedsKnownStock(level, qty)) {
        throw new AppError(
          'CARTS.INSUFFICIENT_STOCK',
          'conflict',
          `only ${level?.available ?? 0} left in ${c.zone}`,
          [{ field: 'body.qty', message: `at most ${level?.available ?? 0} available in ${c.zone}` }],
        );
      }
      const r = putLine(c, productId, line, this.config.CART_MAX_LINES);
      if (!r.ok) {
        if (r.refusal.code === 'CARTS.NOT_EDITABLE') throw notEditable(c);
        throw new AppError(
          'CARTS.TOO_MANY_LINES',
          'conflict',
          `a cart holds at most ${r.refusal.max} lines`,
          [{ field: 'params.product_id', message: `cart already has ${r.refusal.max} lines` }],
        );
      }
      return touched(c, { items: r.items }, new Date(), this.config.CART_TTL_SECONDS);
    });
    if (owner.kind === 'user')
      await this.activity.record(cartActivity.itemPut(owner.userId, cart, productId, line));
    return this.view(cart);
  }

  async removeItem(cartId: string, owner: CartOwner, productId: string): Promise<CartView> {
    const cart = await this.mutate(cartId, owner, async (c) => {
      if (c.status !== 'active') throw notEditable(c);
      return touched(c, { items: withoutLine(c, productId) }, new Date(), this.config.CART_TTL_SECONDS);
    });
    if (owner.kind === 'user')
      await this.activity.record(cartActivity.itemRemoved(owner.userId, cart, productId));
    return this.view(cart);
  }

  listByUser(userId: string, status: Cart['status'], limit: number): Promise<string[]> {
    return this.repo.listByUser(userId, status, limit);
  }

  /**
   * Saga step 5: an outcome moves the cart only while it is checking out on that checkout; a stale
   * or replayed outcome finds it elsewhere and changes nothing, and so do delivery and completion.
   * `after` (the event's activity row) is written in one batch with the writes that follow the
   * status LWT; true when it was, false when the cart did not move (the caller writes it alone).
   */
  async onOrderOutcome(outcome: OrderOutcome, cartId: string, checkoutId: string, after: readonly CqlStatement[] = []): Promise<boolean> {
    const type = outcome.type;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const cart = await this.repo.get(cartId);
      if (!cart) {
        this.logger.warn(
          { cart_id: cartId, checkout_id: checkoutId, type },
          'order outcome for an unknown or expired cart',
        );
        return false;
      }
      const to = statusAfterOutcome(cart, outcome, checkoutId);
      if (to === null) {
        this.logger.info(
          {
            cart_id: cartId,
            checkout_id: checkoutId,
            cart_checkout_id: cart.checkout?.checkout_id ?? null,
            status: cart.status,
            type,
          },
          'order event changes nothing on this cart (another checkout, a replay, or no cart status to change)',
        );
        return false;
      }
      const next = touched(
        cart,
        { status: to, checkout: to === 'active' ? null : cart.checkout },
        new Date(),
        this.config.CART_TTL_SECONDS,
      );
      if (await this.repo.save(next, cart, { after })) {
        this.logger.info(
          { cart_id: cartId, checkout_id: checkoutId, type, to },
          'cart status changed by order outcome',
        );
        return true;
      }
    }
    throw new AppError(
      'CARTS.CONCURRENT_CHANGE',
      'internal',
      `cart ${cartId} kept changing; outcome will be retried`,
    );
  }

  /** Loads, decides and writes with `IF revision = ?`, re-deciding on a fresh read when another write won. */
  async mutate(cartId: string, owner: CartOwner, decide: (cart: Cart) => Promise<Cart>): Promise<Cart> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const cart = await this.load(cartId, owner);
      const next = await decide(cart);
      if (await this.repo.save(next, cart)) return next;
    }
    throw AppError.conflict('CARTS.CONCURRENT_CHANGE', 'the cart changed concurrently; retry');
  }

  /**
   * The caller's cart. Missing and somebody else's answer the same 404 (ADR 0007); only the owner
   * learns that a cart expired.
   */
  async load(cartId: string, owner: CartOwner): Promise<Cart> {
    const cart = await this.repo.get(cartId);
    if (!cart || !isOwnedBy(cart, owner))
      throw AppError.notFound('CARTS.CART_NOT_FOUND', `cart ${cartId} not found or expired`);
    if (isExpired(cart, new Date()))
      throw AppError.notFound(
        'CARTS.CART_EXPIRED',
        `cart ${cartId} expired at ${cart.expires_at.toISOString()}`,
      );
    return cart;
  }

  async view(cart: Cart): Promise<CartView> {
    const ids = Object.keys(cart.items);
    const [products, levels] = await Promise.all([
      this.products.getMany(ids),
      Promise.all(ids.map((id) => this.products.stock(id, cart.zone))),
    ]);
    const stock = new Map(levels.filter((l): l is StockLevel => l !== null).map((l) => [l.product_id, l]));
    return cartView(cart, products, stock);
  }
}

function notEditable(cart: Cart): AppError {
  return new AppError(
    'CARTS.NOT_EDITABLE',
    'conflict',
    `cart is ${cart.status}; items can change only while it is active`,
    [{ field: 'status', message: cart.status }],
  );
}
