import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { Kafka, logLevel } from 'kafkajs';
import { loadConfig } from '@mw/platform';
import { createMessage } from '@mw/contracts';
import { collectFrom, header, startService, testEnv, uniqueName, waitFor } from '@mw/testing';
import { AppModule } from './app.module';
import { ordersConfigSchema } from './config';
import { orderIdFromCheckout } from './orders/order';

const env = testEnv();

/** The orders service end to end: real Kafka, real MongoDB server, HTTP on a random port. */
describe('orders service (real Kafka + MongoDB)', () => {
  let app: INestApplication;
  let url: string;
  let kafka: Kafka;
  let groupId: string;
  const user = uniqueName('user');

  beforeAll(async () => {
    const config = loadConfig(ordersConfigSchema, {
      KAFKA_BROKERS: env.kafkaBrokers.join(','),
      MONGO_URL: env.mongoUrl,
      MONGO_DB: uniqueName('orders'),
      KAFKA_GROUP_ID: (groupId = uniqueName('orders')),
      HTTP_PORT: '1',
      LOG_LEVEL: 'warn',
    });
    ({ app, url } = await startService({
      name: 'orders',
      rootModule: (logger) => AppModule.register(config, logger),
      brokers: config.KAFKA_BROKERS,
      groupId: config.KAFKA_GROUP_ID,
    }));
    kafka = new Kafka({ clientId: 'orders-test-probe', brokers: env.kafkaBrokers, logLevel: logLevel.NOTHING });
  });

  afterAll(async () => {
    await app?.close();
  });

  const checkout = (overrides: Record<string, unknown> = {}) => ({
    cart_id: randomUUID(),
    checkout_id: randomUUID(),
    user_id: user,
    zone: 'MSK',
    currency: 'RUB' as const,
    lines: [{ product_id: '65f000000000000000000001', name: 'Смартфон', qty: 2, unit_price: 1999900 }],
    total: 3999800,
    ...overrides,
  });

  async function send(payload: ReturnType<typeof checkout>, times = 1): Promise<void> {
    const producer = kafka.producer();
    await producer.connect();
    const msg = createMessage('carts.checkout.v1', 'CheckoutRequested', payload, { correlation_id: `saga-${payload.checkout_id}`, causation_id: null });
    for (let i = 0; i < times; i++) await producer.send({ topic: msg.topic, messages: [{ key: msg.key, value: JSON.stringify(msg.envelope) }] });
    await producer.disconnect();
  }

  it('creates exactly one order per checkout, even when the message is delivered three times, and emits OrderCreated once', async () => {
    const c = checkout();
    await send(c, 3);
    const id = orderIdFromCheckout(c.checkout_id);
    const order = await waitFor(async () => {
      const r = await fetch(`${url}/orders/${id}`);
      return r.status === 200 ? ((await r.json()) as { status: string; total: number; version: number }) : undefined;
    }, 60_000, 'order visible over HTTP');
    expect(order).toMatchObject({ status: 'pending', total: 3999800, version: 1 });

    const events = await collectFrom(kafka, ['orders.orders.v1'], (all) => all.some((m) => m.message.value?.toString().includes(id)), 60_000);
    const mine = events.filter((m) => m.message.value?.toString().includes(id));
    expect(mine).toHaveLength(1);
    expect(header(mine[0]!.message, 'x-correlation-id')).toBe(`saga-${c.checkout_id}`);
    expect(mine[0]!.message.key?.toString()).toBe(user);

    const history = (await (await fetch(`${url}/orders?user_id=${user}`)).json()) as { items: { id: string }[] };
    expect(history.items.map((o) => o.id)).toContain(id);
  });

  it('dead-letters a checkout with an inconsistent total and creates nothing', async () => {
    const c = checkout({ total: 1 });
    await send(c);
    const dlq = await collectFrom(kafka, ['carts.checkout.v1.dlq'], (all) => all.some((m) => m.message.value?.toString().includes(c.checkout_id)), 60_000);
    const rec = dlq.find((m) => m.message.value?.toString().includes(c.checkout_id))!;
    expect(header(rec.message, 'x-dlq-error-code')).toBe('ORDERS.INVALID_CHECKOUT');
    expect(header(rec.message, 'x-dlq-reason')).toMatch(/payload\.total/);
    expect((await fetch(`${url}/orders/${orderIdFromCheckout(c.checkout_id)}`)).status).toBe(404);
  });

  it('answers bad HTTP input with 400 and a JSON body naming the field', async () => {
    const bad = await fetch(`${url}/orders/not-an-id`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'COMMON.VALIDATION_FAILED', errors: [{ field: 'params.id' }] });
    const injection = await fetch(`${url}/orders?user_id[$gt]=`);
    expect(injection.status).toBe(400);
    expect(JSON.stringify(await injection.json())).toContain('query');
  });

  it('serves readiness, metrics and the OpenAPI document', async () => {
    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ checks: { mongodb: { status: 'up' }, kafka: { status: 'up' } } });
    expect(await (await fetch(`${url}/metrics`)).text()).toContain('kafka_messages_processed_total');
    const doc = (await (await fetch(`${url}/docs/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/orders/{id}', '/orders', '/health/ready']));
  });

  it('shuts down gracefully: the consumer leaves its group and connections close', async () => {
    const admin = kafka.admin();
    await admin.connect();
    const before = await admin.describeGroups([groupId]);
    expect(before.groups[0]?.members.length).toBe(1);
    await app.close();
    const after = await admin.describeGroups([groupId]);
    await admin.disconnect();
    expect(after.groups[0]?.state).toBe('Empty');
    expect(after.groups[0]?.members).toEqual([]);
  });
});
