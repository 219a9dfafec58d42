import { randomUUID } from 'node:crypto';
import { INestApplication } from '@nestjs/common';
import { Admin, Consumer, Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { createMongoClient } from '@mw/persistence';
import { Carts, createMessage, MessageTypeOf, PayloadOf } from '@mw/contracts';
import { KafkaPublisher } from '@mw/messaging';
import { accessToken, type DemoUser, kafkaSaslEnv, serviceToken, startService, testEnv, uniqueName, waitFor } from '@mw/testing';
import { api } from '../api';
import { AppModule } from '../app.module';
import { loadOrdersConfig, OrdersConfig } from '../config';
import { orderIdFromCheckout } from '../orders/order';
import { OrderDoc, ORDERS_COLLECTION } from '../orders/orders.repository';
import { OperationDoc, SIM_OPERATIONS } from '../payments/simulator/simulated-payment.gateway';

export interface Seen {
  readonly topic: string;
  readonly type: string;
  readonly key: string;
  readonly id: string;
  readonly correlation_id: string;
  readonly payload: Record<string, unknown>;
}

type InventoryEvent = MessageTypeOf<'inventory.events.v1'>;

/**
 * Real orders instances (Nest app, Kafka consumers, payment worker, deadline sweeper) on private
 * topics, a private consumer group and database; the test plays carts (CheckoutRequested) and
 * inventory (replies) straight onto Kafka and records every command and order event orders emits.
 */
export class OrdersHarness {
  readonly apps: INestApplication[] = [];
  readonly urls: string[] = [];
  readonly seen: Seen[] = [];
  readonly config: Readonly<OrdersConfig>;
  readonly kafka: Kafka;
  readonly mongo: MongoClient;
  private readonly publisher: KafkaPublisher;
  private readonly admin: Admin;
  private recorder: Consumer | undefined;

  constructor(overrides: Record<string, string> = {}) {
    const env = testEnv();
    this.config = loadOrdersConfig({
      KAFKA_BROKERS: env.kafkaBrokers.join(','),
      ...kafkaSaslEnv(env.kafkaSasl),
      MONGO_URL: env.mongoUrl,
      MONGO_DB: uniqueName('orders'),
      KAFKA_GROUP_ID: uniqueName('orders'),
      ORDERS_CHECKOUT_TOPIC: uniqueName('test.carts.checkout'),
      ORDERS_EVENTS_TOPIC: uniqueName('test.orders.orders'),
      INVENTORY_COMMANDS_TOPIC: uniqueName('test.inventory.commands'),
      INVENTORY_EVENTS_TOPIC: uniqueName('test.inventory.events'),
      KAFKA_TOPIC_PARTITIONS: '2',
      LOG_LEVEL: 'warn',
      OUTBOX_POLL_MS: '100',
      PAYMENT_POLL_MS: '100',
      SAGA_SWEEP_INTERVAL_MS: '200',
      PAYMENT_SIM_LATENCY_MIN_MS: '0',
      PAYMENT_SIM_LATENCY_MAX_MS: '10',
      PAYMENT_SIM_TRANSIENT_ERROR_RATE: '0',
      PAYMENT_SIM_TIMEOUT_RATE: '0',
      PAYMENT_RETRY_BASE_MS: '50',
      PAYMENT_RETRY_MAX_MS: '300',
      ...overrides,
    });
    this.kafka = new Kafka({ clientId: 'orders-test', brokers: [...this.config.KAFKA_BROKERS], sasl: env.kafkaSasl, logLevel: logLevel.NOTHING });
    this.publisher = new KafkaPublisher(this.kafka);
    this.admin = this.kafka.admin();
    this.mongo = createMongoClient(this.config.MONGO_URL);
  }

  get db() {
    return this.mongo.db(this.config.MONGO_DB);
  }

  async start(instances: number): Promise<void> {
    await this.mongo.connect();
    await this.admin.connect();
    for (let i = 0; i < instances; i++) {
      const { app, url } = await startService({
        name: `orders-${i}`,
        rootModule: (logger) => AppModule.register(this.config, logger),
        brokers: this.config.KAFKA_BROKERS,
        api,
      });
      this.apps.push(app);
      this.urls.push(url);
    }
    if (!this.recorder) await this.startRecorder();
    await waitFor(async () => {
      const { groups } = await this.admin.describeGroups([this.config.KAFKA_GROUP_ID]);
      const g = groups[0];
      return g?.state === 'Stable' && g.members.length === instances && g.members.every((m) => m.memberAssignment.length > 0);
    }, 90_000, `${instances} orders consumer(s) assigned`);
  }

  private async startRecorder(): Promise<void> {
    this.recorder = this.kafka.consumer({ groupId: uniqueName('recorder'), allowAutoTopicCreation: false });
    await this.recorder.connect();
    await this.recorder.subscribe({ topics: [this.config.INVENTORY_COMMANDS_TOPIC, this.config.ORDERS_EVENTS_TOPIC], fromBeginning: true });
    await this.recorder.run({
      eachMessage: async ({ topic, message }) => {
        const e = JSON.parse(message.value?.toString() ?? 'null') as { id: string; type: string; correlation_id: string; payload: Record<string, unknown> };
        this.seen.push({ topic, type: e.type, key: message.key?.toString() ?? '', id: e.id, correlation_id: e.correlation_id, payload: e.payload });
      },
    });
  }

  checkout(overrides: Partial<Carts.CheckoutRequestedPayload> = {}): Carts.CheckoutRequestedPayload & { order_id: string } {
    const c = {
      cart_id: randomUUID(),
      checkout_id: randomUUID(),
      user_id: uniqueName('user'),
      zone: 'MSK',
      currency: 'RUB' as const,
      lines: [{ product_id: '65f000000000000000000001', name: 'Смартфон', qty: 2, unit_price: 1999900 }],
      total: 3999800,
      ...overrides,
    };
    return { ...c, order_id: orderIdFromCheckout(c.checkout_id) };
  }

  async sendCheckout(c: Carts.CheckoutRequestedPayload, times = 1): Promise<void> {
    const { order_id: _o, ...payload } = c as Carts.CheckoutRequestedPayload & { order_id?: string };
    const msg = createMessage('carts.checkout.v1', 'CheckoutRequested', payload, { correlation_id: `saga-${c.checkout_id}`, causation_id: null });
    for (let i = 0; i < times; i++) await this.publisher.publishAll([{ ...msg, topic: this.config.ORDERS_CHECKOUT_TOPIC } as never]);
  }

  /** Publishes an inventory reply (as inventory would); returns its envelope id. Pass `envelopeId` to redeliver the very same message. */
  async reply<M extends InventoryEvent>(type: M, payload: PayloadOf<'inventory.events.v1', M>, envelopeId?: string): Promise<string> {
    const msg = createMessage('inventory.events.v1', type, payload, { correlation_id: 'inventory-test', causation_id: null });
    const envelope = envelopeId ? { ...msg.envelope, id: envelopeId } : msg.envelope;
    await this.publisher.publishAll([{ ...msg, envelope, topic: this.config.INVENTORY_EVENTS_TOPIC } as never]);
    return envelope.id;
  }

  async reserved(c: { order_id: string; zone: string; lines: readonly { product_id: string; qty: number }[] }, holdMs = 15 * 60_000, envelopeId?: string): Promise<string> {
    return this.reply(
      'StockReserved',
      { order_id: c.order_id, zone: c.zone, lines: c.lines.map((l) => ({ product_id: l.product_id, qty: l.qty })), expires_at: new Date(Date.now() + holdMs).toISOString() },
      envelopeId,
    );
  }

  for(orderId: string, type?: string): Seen[] {
    return this.seen.filter((s) => s.payload['order_id'] === orderId && (!type || s.type === type));
  }

  async waitSeen(orderId: string, type: string, count = 1, timeoutMs = 60_000): Promise<Seen[]> {
    return waitFor(async () => {
      const got = this.for(orderId, type);
      return got.length >= count ? got : undefined;
    }, timeoutMs, `${count} × ${type} for ${orderId}`);
  }

  /** A request to an instance with the given headers (`bearer(...)` for a real token); the JSON body. */
  async call<T>(path: string, headers: Record<string, string>, opts: { method?: string; instance?: number } = {}): Promise<{ status: number; headers: Headers; body: T }> {
    const res = await fetch(`${this.urls[opts.instance ?? 0]}${path}`, { method: opts.method ?? 'GET', headers });
    return { status: res.status, headers: res.headers, body: (await res.json()) as T };
  }

  /** An order as support sees it (support reads any order: the saga's observer in these tests). */
  async order(orderId: string, instance = 0): Promise<{ status: number; body: OrderBody }> {
    return this.call<OrderBody>(`/orders/${orderId}`, await bearer('sue'), { instance });
  }

  async waitState(orderId: string, state: string, timeoutMs = 60_000): Promise<OrderBody> {
    return waitFor(async () => {
      const r = await this.order(orderId);
      return r.status === 200 && r.body.state === state ? r.body : undefined;
    }, timeoutMs, `order ${orderId} in ${state}`);
  }

  /** The settings a child process of a crash test runs with (loadOrdersConfig reads them): this harness's servers, database, group and topics. */
  childEnv(extra: Record<string, string> = {}): Record<string, string> {
    const c = this.config;
    return {
      KAFKA_BROKERS: c.KAFKA_BROKERS.join(','),
      ...kafkaSaslEnv(testEnv().kafkaSasl),
      MONGO_URL: c.MONGO_URL,
      MONGO_DB: c.MONGO_DB,
      KAFKA_GROUP_ID: c.KAFKA_GROUP_ID,
      ORDERS_CHECKOUT_TOPIC: c.ORDERS_CHECKOUT_TOPIC,
      ORDERS_EVENTS_TOPIC: c.ORDERS_EVENTS_TOPIC,
      INVENTORY_COMMANDS_TOPIC: c.INVENTORY_COMMANDS_TOPIC,
      INVENTORY_EVENTS_TOPIC: c.INVENTORY_EVENTS_TOPIC,
      ...extra,
    };
  }

  /** After a crash test's kill: one instance started again, every order's sale (CommitStock) seen, a settle, the orders as stored. */
  async ordersAfterRestart(ids: readonly string[]): Promise<OrderDoc[]> {
    await this.start(1);
    for (const id of ids) await this.waitSeen(id, 'CommitStock', 1, 90_000);
    await new Promise((r) => setTimeout(r, 1500));
    return this.db.collection<OrderDoc>(ORDERS_COLLECTION).find({ _id: { $in: [...ids] } }).toArray();
  }

  paymentOps(orderId: string): Promise<OperationDoc[]> {
    return this.db.collection<OperationDoc>(SIM_OPERATIONS).find({ reference: orderId }).toArray();
  }

  /** Closes the running instances (a polite stop); `start` brings new ones into the same group. */
  async stopApps(): Promise<void> {
    for (const app of this.apps.splice(0)) await app.close();
    this.urls.length = 0;
  }

  async stop(): Promise<void> {
    await this.recorder?.disconnect();
    for (const app of this.apps) await app.close();
    await this.publisher.disconnect();
    await this.admin.disconnect();
    await this.db.dropDatabase().catch(() => undefined);
    await this.mongo.close();
  }
}

/** The Authorization header of a demo user: a real token from the project's Keycloak. */
export async function bearer(user: DemoUser): Promise<{ authorization: string }> {
  return { authorization: `Bearer ${await accessToken(user)}` };
}

/** The Authorization header of the operations client (client credentials, role operator). */
export async function serviceBearer(): Promise<{ authorization: string }> {
  return { authorization: `Bearer ${await serviceToken()}` };
}

export interface OrderBody {
  id: string;
  user_id: string;
  status: string;
  state: string;
  reason: string | null;
  lines: { product_id: string; qty: number; unit_price: string; line_total: string }[];
  totals: { items: number; total: string; currency: string };
  payment: { step: string | null; authorized: boolean; captured: boolean; reversed: string | null; reversal_round: number; decline_code: string | null };
  history: { from: string; to: string; event: string; cause: string; at: string; by: { sub: string; role: string } | null }[];
  version: number;
}
