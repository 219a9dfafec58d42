import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { OutgoingMessage } from '@mw/contracts';
import { KafkaPublisher, type PublishedMessage } from '@mw/messaging';
import { LOGGER, Periodic } from '@mw/platform';
import { CARTS_CONFIG } from '../config.token';
import type { CartsConfig } from '../config';
import { CartsRepository } from '../carts/carts.repository';
import { decideIntent, dueForRelay } from './checkout';
import { CheckoutOutboxRepository, StoredIntent } from './checkout.repository';
import { RelayBoundsRepository } from './relay-bounds.repository';
import { IdleBackoff, RELAY_IDLE_FACTOR, RelayBounds, ScanWindow } from './relay-pacing';

/** Intents one read of a bucket takes; a full page is continued by the next pass. */
const PAGE = 200;

/**
 * Publishes checkout intents whose LWT applied and removes the rest (ADR 0060). The request that
 * wrote an intent publishes it itself; this relay is what makes a crash between the intent, the
 * LWT and the publish lose nothing and publish nothing for a checkout that did not happen.
 * Each bucket is read from its time bound on (deleted intents are not read again), and an idle
 * relay backs off to one pass per RELAY_IDLE_FACTOR intervals; a local checkout wakes it.
 */
@Injectable()
export class CheckoutRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop: Periodic;
  private readonly window: RelayBounds;
  private readonly backoff = new IdleBackoff(RELAY_IDLE_FACTOR);

  constructor(
    private readonly outbox: CheckoutOutboxRepository,
    private readonly carts: CartsRepository,
    private readonly publisher: KafkaPublisher,
    bounds: RelayBoundsRepository,
    @Inject(CARTS_CONFIG) private readonly config: Readonly<CartsConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.window = new RelayBounds('checkout', bounds, new ScanWindow(config.RELAY_LOOKBACK_MS), config.RELAY_LOOKBACK_MS);
    this.loop = new Periodic('checkout-relay', config.CHECKOUT_RELAY_INTERVAL_MS, () => this.backoff.tick(async () => (await this.pass()).found), logger);
  }

  /** A checkout of this instance wrote an intent: read at the next tick, whatever the backoff. */
  nudge(): void {
    this.backoff.wake();
    this.window.deleted(); // its request deletes the intent once published
  }

  /** The message an intent stands for, on the configured checkout topic, continuing the checkout's trace (ADR 0014). */
  toMessage(intent: Pick<StoredIntent, 'key' | 'envelope' | 'traceparent'>): PublishedMessage<'carts.checkout.v1'> {
    return {
      topic: this.config.CARTS_CHECKOUT_TOPIC as 'carts.checkout.v1',
      key: intent.key,
      envelope: JSON.parse(intent.envelope) as OutgoingMessage<'carts.checkout.v1'>['envelope'],
      ...(intent.traceparent ? { traceparent: intent.traceparent } : {}),
    };
  }

  onApplicationBootstrap(): void {
    this.loop.start();
    this.loop.kick(); // first pass now: intents a crash left behind go out at once
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  /** One pass over every bucket; returns how many intents it published. */
  async drainOnce(now = new Date()): Promise<number> {
    return (await this.pass(now)).published;
  }

  /** One pass: the intents it published, and those it found at all (none: idle, back off). */
  private async pass(now = new Date()): Promise<{ published: number; found: number }> {
    let published = 0;
    let found = 0;
    for (let bucket = 0; bucket < this.config.CHECKOUT_OUTBOX_BUCKETS; bucket++) {
      const startedAt = new Date();
      const intents = await this.outbox.pending(bucket, PAGE, await this.window.from(bucket));
      found += intents.length;
      const toPublish: StoredIntent[] = [];
      const toDiscard: StoredIntent[] = [];
      for (const intent of intents) {
        if (!dueForRelay(intent, now, this.config.CHECKOUT_RELAY_MIN_AGE_MS)) continue;
        // SERIAL: completes an LWT in flight; one not yet proposed is stopped by the fence (decideIntent).
        const cart = await this.carts.get(intent.cart_id, { serial: true });
        const decision = decideIntent(intent, cart, now, this.config.CHECKOUT_INTENT_GRACE_MS);
        if (decision === 'publish') toPublish.push(intent);
        else if (decision === 'discard') toDiscard.push(intent);
        // A fence that lost its LWT met a change of the cart (perhaps this very checkout): decided again next pass.
        else if (decision === 'fence' && cart && (await this.carts.fence(cart))) toDiscard.push(intent);
      }
      if (toPublish.length > 0) {
        await this.publisher.publishAll(toPublish.map((i) => this.toMessage(i)), { outbox: 'carts.checkout_outbox' });
        this.logger.info({ checkout_ids: toPublish.map((i) => i.checkout_id) }, 'relay published checkout intents');
      }
      if (toDiscard.length > 0) this.logger.info({ checkout_ids: toDiscard.map((i) => i.checkout_id) }, 'relay discarded intents whose LWT did not apply');
      await this.outbox.delete([...toPublish, ...toDiscard]);
      published += toPublish.length;
      const gone = new Set([...toPublish, ...toDiscard]);
      this.window.passed(bucket, { startedAt, rows: intents, pageSize: PAGE, gone });
    }
    await this.window.saveIfDue();
    return { published, found };
  }
}
