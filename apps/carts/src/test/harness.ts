import type { INestApplication } from '@nestjs/common';
import { Consumer, Kafka, logLevel, Producer } from 'kafkajs';
import { createMessage, MessageTypeOf, PayloadOf } from '@mw/contracts';
import type { EdgeSettings } from '@mw/platform';
import {
  accessToken,
  type DemoUser,
  kafkaSaslEnv,
  startService,
  testEdgeSettings,
  testEnv,
  uniqueName,
  waitFor,
} from '@mw/testing';
import { api } from '../api';
import { AppModule } from '../app.module';
import { CartsConfig, loadCartsConfig } from '../config';
import { guestSessionsOf } from '../sessions/guest-sessions';

/** Request headers of a caller: a bearer token or a guest session. */
export type Who = Readonly<Record<string, string>>;

/** The guest-session key of the suites (not the development default, so a test proves the configured one is used). */
export const TEST_GUEST_SESSION_SECRET = 'carts-integration-tests-guest-session-key-0123456789';

/** A message the harness sent (topic standing for a private one, key and envelope JSON). */
export interface Sent {
  readonly topic: 'catalog.products.v1' | 'inventory.events.v1' | 'orders.orders.v1';
  readonly key: string;
  readonly value: string;
}

export interface Published {
  readonly key: string;
  readonly type: string;
  readonly id: string;
  readonly payload: Record<string, unknown>;
}

/**
 * The carts service under test against the real Cassandra and Kafka: a private keyspace, consumer
 * group and topics (so no other suite's messages reach it), a producer for the events carts consume
 * and a recorder of every CheckoutRequested it publishes.
 */
export class CartsHarness {
  readonly config: Readonly<CartsConfig>;
  readonly env: Record<string, string>;
  readonly kafka: Kafka;
  readonly checkouts: Published[] = [];
  app!: INestApplication;
  url = '';
  private readonly producer: Producer;
  private recorder: Consumer | undefined;

  constructor(
    overrides: Record<string, string> = {},
    private readonly edge: Partial<EdgeSettings> = {},
  ) {
    const env = testEnv();
    const oidc = testEdgeSettings().oidc;
    this.env = {
      NODE_ENV: 'test',
      // The project's Keycloak (exported by the jest globalSetup): also what a child process verifies tokens against.
      OIDC_ISSUER: oidc.issuer,
      OIDC_AUDIENCE: oidc.audience,
      GUEST_SESSION_SECRET: TEST_GUEST_SESSION_SECRET,
      RATE_LIMIT_WRITES_PER_MINUTE: '1000000',
      RATE_LIMIT_READS_PER_MINUTE: '1000000',
      RATE_LIMIT_GUEST_SESSIONS_PER_HOUR: '1000000',
      // suites create many carts of one user; the cap has a test of its own
      CARTS_MAX_ACTIVE_PER_OWNER: '10000',
      LOG_LEVEL: 'warn',
      KAFKA_BROKERS: env.kafkaBrokers.join(','),
      ...kafkaSaslEnv(env.kafkaSasl),
      CASSANDRA_CONTACT_POINTS: env.cassandraContactPoints.join(','),
      CASSANDRA_LOCAL_DATACENTER: env.cassandraDatacenter,
      CASSANDRA_KEYSPACE: uniqueName('carts').toLowerCase(),
      KAFKA_GROUP_ID: uniqueName('carts'),
      KAFKA_TOPIC_PARTITIONS: '3',
      CARTS_PRODUCTS_TOPIC: uniqueName('test.carts.products'),
      CARTS_STOCK_TOPIC: uniqueName('test.carts.stock'),
      CARTS_ORDERS_TOPIC: uniqueName('test.carts.orders'),
      CARTS_CHECKOUT_TOPIC: uniqueName('test.carts.checkout'),
      CHECKOUT_RELAY_INTERVAL_MS: '200',
      CHECKOUT_RELAY_MIN_AGE_MS: '1000',
      CHECKOUT_INTENT_GRACE_MS: '3000',
      MERGE_RELAY_INTERVAL_MS: '200',
      MERGE_RELAY_MIN_AGE_MS: '1000',
      MERGE_INTENT_GRACE_MS: '3000',
      ...overrides,
    };
    this.config = loadCartsConfig(this.env);
    this.kafka = new Kafka({
      clientId: 'carts-test',
      brokers: [...this.config.KAFKA_BROKERS],
      sasl: env.kafkaSasl,
      logLevel: logLevel.NOTHING,
    });
    this.producer = this.kafka.producer({ allowAutoTopicCreation: false });
  }

  /** Starts the service in this process and the checkout recorder. */
  async start(): Promise<void> {
    ({ app: this.app, url: this.url } = await startService({
      name: 'carts',
      rootModule: (l) => AppModule.register(this.config, l),
      brokers: this.config.KAFKA_BROKERS,
      // the service's own InboundConsumer consumes (in batches), not Nest's transport
      api,
      guestSessions: guestSessionsOf(this.config),
      edge: this.edge,
    }));
    await this.connect();
  }

  /** Producer and recorder only (the service runs elsewhere, e.g. as a child process). */
  async connect(): Promise<void> {
    await this.producer.connect();
    this.recorder = this.kafka.consumer({ groupId: uniqueName('recorder'), allowAutoTopicCreation: false });
    await this.recorder.connect();
    await waitFor(
      async () => (await this.kafka.admin().listTopics()).includes(this.config.CARTS_CHECKOUT_TOPIC),
      30_000,
      'checkout topic',
    );
    await this.recorder.subscribe({ topics: [this.config.CARTS_CHECKOUT_TOPIC], fromBeginning: true });
    await this.recorder.run({
      eachMessage: async ({ message }) => {
        const e = JSON.parse(String(message.value)) as {
          id: string;
          type: string;
          payload: Record<string, unknown>;
        };
        this.checkouts.push({ key: String(message.key), type: e.type, id: e.id, payload: e.payload });
      },
    });
  }

  async stop(): Promise<void> {
    await this.recorder?.disconnect();
    await this.producer.disconnect();
    await this.app?.close();
  }

  /** Publishes an event onto the private topic standing for `topic`; returns what was sent (to redeliver it with `resend`). */
  async publish<
    T extends 'catalog.products.v1' | 'inventory.events.v1' | 'orders.orders.v1',
    M extends MessageTypeOf<T>,
  >(topic: T, type: M, payload: PayloadOf<T, M>): Promise<Sent> {
    const msg = createMessage(topic, type, payload, {
      correlation_id: uniqueName('corr'),
      causation_id: null,
    });
    const sent = { topic, key: msg.key, value: JSON.stringify(msg.envelope) };
    await this.resend(sent);
    return sent;
  }

  /** Sends the very same message again: a redelivery (same envelope id), as an at-least-once producer may. */
  async resend(sent: Sent): Promise<void> {
    const target = {
      'catalog.products.v1': this.config.CARTS_PRODUCTS_TOPIC,
      'inventory.events.v1': this.config.CARTS_STOCK_TOPIC,
      'orders.orders.v1': this.config.CARTS_ORDERS_TOPIC,
    }[sent.topic];
    await this.producer.send({ topic: target, acks: -1, messages: [{ key: sent.key, value: sent.value }] });
  }

  /** A product event with a full snapshot (created_at fixed per product so versions order the writes). */
  async product(
    id: string,
    version: number,
    price: number,
    opts: { priceChangedFrom?: number; name?: string } = {},
  ): Promise<void> {
    const s = snapshot(id, version, price, opts.name);
    if (opts.priceChangedFrom !== undefined)
      await this.publish('catalog.products.v1', 'ProductPriceChanged', {
        ...s,
        previous_price: opts.priceChangedFrom,
      });
    else await this.publish('catalog.products.v1', version === 1 ? 'ProductCreated' : 'ProductUpdated', s);
  }

  async http(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const r = await fetch(`${this.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  /** A demo user's headers: a real access token from the project's Keycloak. */
  async as(user: DemoUser): Promise<Who> {
    return { authorization: `Bearer ${await accessToken(user)}` };
  }

  /** A new guest's headers: a guest session issued by the service (POST /guest-sessions). */
  async guest(): Promise<Who & { 'x-guest-session': string }> {
    const r = await this.http('POST', '/guest-sessions');
    if (r.status !== 201) throw new Error(`guest session: ${r.status} ${JSON.stringify(r.body)}`);
    return { 'x-guest-session': r.body['guest_session'] as string };
  }

  /** A new cart of the caller (alice unless given). */
  async createCart(zone = 'MSK', who?: Who): Promise<string> {
    const r = await this.http('POST', '/carts', { zone }, who ?? (await this.as('alice')));
    if (r.status !== 201) throw new Error(`create cart: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body['cart_id'] as string;
  }

  /** Waits until the service has a product in its table at this price (consumed from the topic). */
  async waitForPrice(cartId: string, productId: string, price: string | null, who?: Who): Promise<void> {
    const headers = who ?? (await this.as('alice'));
    await waitFor(
      async () => {
        const r = await this.http('PUT', `/carts/${cartId}/items/${productId}`, { qty: 1 }, headers);
        if (price === null) return r.status === 404;
        return (
          r.status === 200 &&
          (r.body['items'] as Record<string, { unit_price: string }>)[productId]?.unit_price === price
        );
      },
      60_000,
      `product ${productId} at ${price}`,
    );
  }

  /** Waits until the service's consumer group has committed every record of a private topic. */
  async drained(topic: 'catalog.products.v1' | 'inventory.events.v1' | 'orders.orders.v1'): Promise<void> {
    const name = {
      'catalog.products.v1': this.config.CARTS_PRODUCTS_TOPIC,
      'inventory.events.v1': this.config.CARTS_STOCK_TOPIC,
      'orders.orders.v1': this.config.CARTS_ORDERS_TOPIC,
    }[topic];
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      await waitFor(
        async () => {
          const high = await admin.fetchTopicOffsets(name);
          const [committed] = await admin.fetchOffsets({
            groupId: this.config.KAFKA_GROUP_ID,
            topics: [name],
          });
          return high.every(
            (h) =>
              committed?.partitions.find((p) => p.partition === h.partition)?.offset === h.high ||
              h.high === '0',
          );
        },
        60_000,
        `${name} consumed`,
      );
    } finally {
      await admin.disconnect();
    }
  }

  checkoutsOf(cartId: string): Published[] {
    return this.checkouts.filter((c) => c.payload['cart_id'] === cartId);
  }
}

/** Relays whose passes the test runs (the loops tick once a minute): intents are due at once and past their grace after 0.5 s. */
export const RELAYS_RUN_BY_THE_TEST: Readonly<Record<string, string>> = {
  CHECKOUT_RELAY_INTERVAL_MS: '60000',
  MERGE_RELAY_INTERVAL_MS: '60000',
  CHECKOUT_RELAY_MIN_AGE_MS: '0',
  CHECKOUT_INTENT_GRACE_MS: '500',
  MERGE_RELAY_MIN_AGE_MS: '0',
  MERGE_INTENT_GRACE_MS: '500',
};

export const oid = (n: number): string => n.toString(16).padStart(24, '0');
const CATEGORY = oid(0xca7);
const CREATED = '2026-11-21T10:00:00.000Z';

export function snapshot(id: string, version: number, price: number, name = 'Смартфон') {
  return {
    product_id: id,
    version,
    name,
    category_id: CATEGORY,
    ancestors: [CATEGORY],
    price,
    currency: 'RUB' as const,
    attributes: {},
    created_at: CREATED,
    updated_at: new Date(Date.parse(CREATED) + version * 1000).toISOString(),
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
