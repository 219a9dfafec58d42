import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import type { EnvelopeOf } from '@mw/contracts';
import {
  BatchConsumer,
  ConsumerRunner,
  InboundRecord,
  KAFKA,
  recordsOfTypes,
  serviceBatchConsumerOptions,
} from '@mw/messaging';
import { HealthRegistry, LOGGER } from '@mw/platform';
import { OrdersConfig } from '../config';
import { ORDERS_CONFIG } from '../config.token';
import { CheckoutService } from '../orders/checkout.service';
import { SAGA_REPLY_TYPES, sagaInputOf } from './inventory-replies';
import { SagaService } from './saga.service';

/**
 * The saga's Kafka entry: carts.checkout.v1 (a checkout becomes an order) and inventory.events.v1
 * (stock replies move the saga), both consumed a partition batch at a time in the service's group
 * (group commit, ADR 0012 §4). A chunk of one partition goes to the service as one call — one read
 * of its orders and one write of their transitions, or one insert of its orders — and its offsets
 * are committed after the majority acknowledged it. The consumer runner validates (dead letters),
 * and when a batch fails each record takes the per-message path (retries, waits); everything it
 * does is idempotent, so a redelivered chunk changes nothing twice.
 */
@Injectable()
export class SagaConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly consumer: BatchConsumer;
  private readonly topics: { readonly checkout: string; readonly inventoryEvents: string };

  constructor(
    @Inject(KAFKA) kafka: Kafka,
    private readonly runner: ConsumerRunner,
    private readonly checkout: CheckoutService,
    private readonly saga: SagaService,
    health: HealthRegistry,
    @Inject(ORDERS_CONFIG) c: Readonly<OrdersConfig>,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.topics = { checkout: c.ORDERS_CHECKOUT_TOPIC, inventoryEvents: c.INVENTORY_EVENTS_TOPIC };
    this.consumer = new BatchConsumer(
      kafka,
      serviceBatchConsumerOptions(c, 'saga-consumer', [c.ORDERS_CHECKOUT_TOPIC, c.INVENTORY_EVENTS_TOPIC], c.SAGA_BATCH_MAX),
      (records) => this.handleBatch(records),
      health,
      logger,
    );
  }

  /** One chunk of one partition (one topic). */
  async handleBatch(chunk: readonly InboundRecord[]): Promise<void> {
    // StockLevelChanged (carts' business) is passed over by its type header, never parsed
    const records =
      chunk[0]?.topic === this.topics.inventoryEvents ? recordsOfTypes(chunk, SAGA_REPLY_TYPES) : chunk;
    const [first] = records;
    if (!first) return;
    if (records.length === 1) return this.handleOne(first);
    const topic = first.topic;
    if (topic === this.topics.checkout) {
      await this.runner.runBatch(
        'carts.checkout.v1',
        records,
        (envelopes, ctx) =>
          this.checkout.onCheckoutRequestedMany(
            envelopes.map((e) => ({
              payload: e.payload,
              trace: { correlation_id: e.correlation_id, causation_id: e.id },
            })),
            ctx.within,
          ),
        (e) => this.onCheckout(e),
      );
    } else if (topic === this.topics.inventoryEvents) {
      await this.runner.runBatch(
        'inventory.events.v1',
        records,
        async (envelopes, ctx) => {
          // replies the saga does not follow (StockLevelChanged) are handled by doing nothing
          const followed = envelopes.flatMap((e, index) => {
            const m = sagaInputOf(e);
            return m ? [{ index, orderId: m.orderId, input: m.input, causation: e.id }] : [];
          });
          if (followed.length === 0) return;
          const indexOf = followed.map((f) => f.index);
          await this.saga.applyMany(followed, (j, fn) => ctx.within(indexOf[j] ?? j, fn));
        },
        (e) => this.onReply(e),
      );
    }
  }

  /** A record alone: the per-message path. */
  private async handleOne(record: InboundRecord): Promise<void> {
    if (record.topic === this.topics.checkout)
      await this.runner.run('carts.checkout.v1', record, (e) => this.onCheckout(e));
    else if (record.topic === this.topics.inventoryEvents)
      await this.runner.run('inventory.events.v1', record, (e) => this.onReply(e));
  }

  private onCheckout(e: EnvelopeOf<'carts.checkout.v1'>): Promise<void> {
    return this.checkout.onCheckoutRequested(e.payload, {
      correlation_id: e.correlation_id,
      causation_id: e.id,
    });
  }

  private async onReply(e: EnvelopeOf<'inventory.events.v1'>): Promise<void> {
    const m = sagaInputOf(e);
    if (m) await this.saga.apply(m.orderId, m.input, e.id);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.consumer.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.runner.stop();
    await this.consumer.stop();
  }
}
