import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { Carts, createMessage } from '@mw/contracts';
import { KafkaPublisher } from '@mw/messaging';
import { AppError, FieldProblem, formatMoney, LOGGER, outgoingTrace, traceparentOf } from '@mw/platform';
import { cartActivity } from '../activity/activity';
import { ActivityService } from '../activity/activity.service';
import { CARTS_CONFIG } from '../config.token';
import type { CartsConfig } from '../config';
import { Cart, checkoutOfKey, rememberKey, touched } from '../carts/cart';
import { checkoutView } from '../carts/cart-view';
import { CartsRepository } from '../carts/carts.repository';
import { CartsService } from '../carts/carts.service';
import { ProductsRepository } from '../products/products.repository';
import { bucketOf, CheckoutRefusal, priceCheckout } from './checkout';
import { CheckoutRelay } from './checkout-relay';
import { CheckoutOutboxRepository, StoredIntent } from './checkout.repository';
import { writtenInTime } from './relay-pacing';
import { TestPausePoints } from './test-pause-points';

export interface CheckoutAnswer {
  /** 202 when this request started the checkout, 200 when it answers one already started. */
  readonly httpStatus: 200 | 202;
  readonly body: {
    readonly cart_id: string;
    readonly checkout_id: string;
    /** The order this checkout becomes (orders derives it from the checkout id: `Carts.orderIdOfCheckout`). */
    readonly order_id: string;
    readonly status: Cart['status'];
    readonly lines: readonly { product_id: string; name: string; qty: number; unit_price: string }[];
    readonly total: string;
    readonly currency: 'RUB';
  };
}

const MAX_ATTEMPTS = 5;

/**
 * POST /carts/{id}/checkout (ADR 0060): price the cart from the product table, write the outbox
 * intent, then the LWT active → checking_out; publish; the relay covers every crash in between.
 */
@Injectable()
export class CheckoutService {
  constructor(
    private readonly carts: CartsService,
    private readonly repo: CartsRepository,
    private readonly products: ProductsRepository,
    private readonly outbox: CheckoutOutboxRepository,
    private readonly relay: CheckoutRelay,
    private readonly publisher: KafkaPublisher,
    private readonly pauses: TestPausePoints,
    private readonly activity: ActivityService,
    @Inject(CARTS_CONFIG) private readonly config: Readonly<CartsConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Checks out the user's own cart; `userId` is the verified token subject, and the order's user. */
  async checkout(
    cartId: string,
    userId: string,
    idempotencyKey: string | undefined,
  ): Promise<CheckoutAnswer> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const cart = await this.carts.load(cartId, { kind: 'user', userId });
      const prior = checkoutOfKey(cart, idempotencyKey);
      if (prior) return this.answerExisting(cart, prior, userId);
      if (cart.status === 'checking_out' && cart.checkout) {
        // A repeated checkout answers the checkout in progress; the key is remembered for it.
        if (idempotencyKey)
          await this.repo.save(
            touched(
              cart,
              { checkout_keys: rememberKey(cart.checkout_keys, idempotencyKey, cart.checkout.checkout_id) },
              new Date(),
              this.config.CART_TTL_SECONDS,
            ),
            cart,
          );
        return this.answerExisting(cart, cart.checkout.checkout_id, userId);
      }
      const started = await this.start(cart, userId, idempotencyKey);
      if (started) return started;
      // Another write won the revision race: decide again on a fresh read.
    }
    throw AppError.conflict('CARTS.CONCURRENT_CHANGE', 'the cart changed concurrently; retry');
  }

  private async start(
    cart: Cart,
    userId: string,
    idempotencyKey: string | undefined,
  ): Promise<CheckoutAnswer | null> {
    const priced = priceCheckout(cart, await this.products.getMany(Object.keys(cart.items)), {
      zones: this.config.ZONES,
      maxLines: this.config.CART_MAX_LINES,
    });
    if (!priced.ok) throw refusalError(priced.refusals, cart);
    const now = new Date();
    const checkoutId = randomUUID();
    const msg = createMessage(
      'carts.checkout.v1',
      'CheckoutRequested',
      {
        cart_id: cart.cart_id,
        checkout_id: checkoutId,
        user_id: userId,
        zone: cart.zone,
        currency: 'RUB',
        lines: [...priced.lines],
        total: priced.total,
      },
      outgoingTrace(),
      now,
    );
    const traceparent = traceparentOf();
    const intent: StoredIntent = {
      bucket: bucketOf(checkoutId, this.config.CHECKOUT_OUTBOX_BUCKETS),
      created_at: now,
      checkout_id: checkoutId,
      cart_id: cart.cart_id,
      key: msg.key,
      envelope: JSON.stringify(msg.envelope),
      // the relay's publish (after a crash, by any instance) continues this request's trace (ADR 0014)
      ...(traceparent ? { traceparent } : {}),
    };
    // 1. The intent first: whatever happens next, the relay can find this checkout.
    await this.outbox.put(intent);
    this.relay.nudge();
    if (!writtenInTime(now, new Date(), this.config.RELAY_LOOKBACK_MS)) {
      // Acknowledged so late that a relay may have moved its time bound past it: never run its LWT.
      await this.outbox.delete([intent]);
      this.logger.warn({ cart_id: cart.cart_id, checkout_id: checkoutId }, 'checkout intent written too late for the relays; trying again');
      return null;
    }
    await this.pauses.at('after-intent', checkoutId);
    // 2. The LWT: active → checking_out at the revision read. Losing it means someone else changed the cart.
    const next = touched(
      cart,
      {
        status: 'checking_out',
        checkout: {
          checkout_id: checkoutId,
          requested_at: now.toISOString(),
          lines: priced.lines,
          total: priced.total,
        },
        checkout_keys: rememberKey(cart.checkout_keys, idempotencyKey, checkoutId),
      },
      now,
      this.config.CART_TTL_SECONDS,
    );
    const applied = await this.repo.save(next, cart, {
      afterApplied: () => this.pauses.at('after-lwt', checkoutId),
    });
    if (!applied) {
      await this.outbox.delete([intent]);
      this.logger.info(
        { cart_id: cart.cart_id, checkout_id: checkoutId },
        'checkout LWT lost; intent removed',
      );
      return null;
    }
    // 3. Publish now (the relay would, a few seconds later), then drop the intent — in one batch
    //    with the CHECKOUT_REQUESTED activity row, which is written alone if that batch never runs.
    const row = next.checkout ? await this.activity.prepare(cartActivity.checkoutRequested(userId, next, next.checkout)) : null;
    let rowWritten = false;
    try {
      await this.publisher.publish(this.relay.toMessage(intent));
      await this.outbox.delete([intent], row ? [row] : []);
      rowWritten = true;
    } catch (e) {
      this.logger.warn(
        { cart_id: cart.cart_id, checkout_id: checkoutId, err: (e as Error).message },
        'publish after checkout failed; the relay will publish',
      );
    }
    this.logger.info(
      { cart_id: cart.cart_id, checkout_id: checkoutId, total: priced.total, lines: priced.lines.length },
      'checkout requested',
    );
    if (row && !rowWritten) await this.activity.write(row);
    return this.answer(next, checkoutId, 202);
  }

  /**
   * A repeated checkout (same cart, or same Idempotency-Key) answers the recorded one and writes its
   * activity row again: the row is keyed by the checkout, so this restores an event a crash right
   * after the status LWT lost, and otherwise overwrites it unchanged.
   */
  private async answerExisting(cart: Cart, checkoutId: string, userId: string): Promise<CheckoutAnswer> {
    await this.recordActivity(cart, checkoutId, userId);
    return this.answer(cart, checkoutId, 200);
  }

  private async recordActivity(cart: Cart, checkoutId: string, userId: string): Promise<void> {
    if (cart.checkout?.checkout_id === checkoutId)
      await this.activity.record(cartActivity.checkoutRequested(userId, cart, cart.checkout));
  }

  private answer(cart: Cart, checkoutId: string, httpStatus: 200 | 202): CheckoutAnswer {
    const snapshot = cart.checkout?.checkout_id === checkoutId ? checkoutView(cart.checkout) : null;
    return {
      httpStatus,
      body: {
        cart_id: cart.cart_id,
        checkout_id: checkoutId,
        order_id: Carts.orderIdOfCheckout(checkoutId),
        status: cart.status,
        lines: snapshot?.lines ?? [],
        total: snapshot?.total ?? formatMoney(0),
        currency: 'RUB',
      },
    };
  }
}

function refusalError(refusals: readonly CheckoutRefusal[], cart: Cart): AppError {
  const first = refusals[0];
  const errors: FieldProblem[] = refusals.map((r) => ({ field: r.field, message: refusalMessage(r, cart) }));
  const code = first?.code ?? 'CARTS.NOT_CHECKOUTABLE';
  const kind =
    code === 'CARTS.PRODUCT_UNAVAILABLE' || code === 'CARTS.NOT_CHECKOUTABLE' ? 'conflict' : 'unprocessable';
  return new AppError(code, kind, errors[0]?.message ?? 'cart cannot be checked out', errors);
}

function refusalMessage(r: CheckoutRefusal, cart: Cart): string {
  switch (r.code) {
    case 'CARTS.EMPTY_CART':
      return 'the cart is empty';
    case 'CARTS.TOO_MANY_LINES':
      return `at most ${r.max} lines can be checked out`;
    case 'CARTS.PRODUCT_UNAVAILABLE':
      return 'the catalog no longer sells this product; remove it';
    case 'CARTS.USER_REQUIRED':
      return 'a guest cart cannot be checked out; sign in first';
    case 'CARTS.UNKNOWN_ZONE':
      return `zone ${cart.zone} is not served`;
    case 'CARTS.NOT_CHECKOUTABLE':
      return `cart is ${cart.status}`;
  }
}
