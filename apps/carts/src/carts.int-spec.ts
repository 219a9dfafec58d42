import type { INestApplication } from '@nestjs/common';
import { Kafka, logLevel } from 'kafkajs';
import { createMessage } from '@mw/contracts';
import { loadConfig } from '@mw/platform';
import { startService, testEnv, uniqueName, waitFor } from '@mw/testing';
import { AppModule } from './app.module';
import { cartsConfigSchema } from './config';
import { CartsRepository } from './carts/carts.repository';

const env = testEnv();

/** The carts service against real Cassandra and Kafka. */
describe('carts service (real Cassandra + Kafka)', () => {
  let app: INestApplication;
  let url: string;
  const product = '65f0000000000000000000a1';

  beforeAll(async () => {
    const config = loadConfig(cartsConfigSchema, {
      KAFKA_BROKERS: env.kafkaBrokers.join(','),
      CASSANDRA_CONTACT_POINTS: env.cassandraContactPoints.join(','),
      CASSANDRA_LOCAL_DATACENTER: env.cassandraDatacenter,
      CASSANDRA_KEYSPACE: uniqueName('carts').toLowerCase(),
      KAFKA_GROUP_ID: uniqueName('carts'),
    });
    ({ app, url } = await startService({ name: 'carts', rootModule: (l) => AppModule.register(config, l), brokers: config.KAFKA_BROKERS, groupId: config.KAFKA_GROUP_ID }));
  });
  afterAll(async () => {
    await app?.close();
  });

  const json = (method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

  it('creates a guest cart, puts and removes items without reading first, totals in minor units', async () => {
    const created = (await (await json('POST', '/carts', { zone: 'MSK' })).json()) as { cart_id: string; session_id: string; status: string };
    expect(created.status).toBe('active');
    expect(created.session_id).toMatch(/^[0-9a-f-]{36}$/);
    await json('PUT', `/carts/${created.cart_id}/items/${product}`, { name: 'Смартфон', qty: 2, unit_price: '59990.50' });
    const other = '65f0000000000000000000a2';
    const r = await json('PUT', `/carts/${created.cart_id}/items/${other}`, { name: 'Чехол', qty: 1, unit_price: '990' });
    expect(((await r.json()) as { total: number }).total).toBe(2 * 5999050 + 99000);
    const after = (await (await json('DELETE', `/carts/${created.cart_id}/items/${other}`)).json()) as { items: Record<string, unknown>; total: number };
    expect(Object.keys(after.items)).toEqual([product]);
    expect(after.total).toBe(11998100);
  });

  it.each([
    ['fractional qty', { name: 'x', qty: 1.5, unit_price: '1.00' }, 'body.qty'],
    ['negative qty', { name: 'x', qty: -1, unit_price: '1.00' }, 'body.qty'],
    ['float price', { name: 'x', qty: 1, unit_price: 0.1 }, 'body.unit_price'],
    ['operator injection', { name: { $gt: '' }, qty: 1, unit_price: '1.00' }, 'body.name'],
    ['unknown field', { name: 'x', qty: 1, unit_price: '1.00', $where: 'sleep(1000)' }, 'body'],
  ])('refuses %s with 400 naming the field', async (_n, body, field) => {
    const cart = (await (await json('POST', '/carts', { zone: 'SPB' })).json()) as { cart_id: string };
    const r = await json('PUT', `/carts/${cart.cart_id}/items/${product}`, body);
    expect(r.status).toBe(400);
    const problem = (await r.json()) as { errors: { field: string }[] };
    expect(problem.errors.map((e) => e.field)).toContain(field);
  });

  it('refuses unknown zones, malformed ids and oversized bodies', async () => {
    expect((await json('POST', '/carts', { zone: 'NSK' })).status).toBe(400);
    expect((await json('GET', '/carts/not-a-uuid')).status).toBe(400);
    const huge = await json('POST', '/carts', { zone: 'MSK', user_id: 'u'.repeat(1_000_000) });
    expect(huge.status).toBe(413);
  });

  it('closes a cart in checkout when its order is confirmed; a replay changes nothing', async () => {
    const cart = (await (await json('POST', '/carts', { zone: 'EKB', user_id: uniqueName('u') })).json()) as { cart_id: string; user_id: string };
    const repo = app.get(CartsRepository);
    const loaded = await repo.get(cart.cart_id);
    expect(await repo.transition(loaded!, 'active', 'checking_out', new Date())).toBe(true);

    const kafka = new Kafka({ clientId: 'carts-test', brokers: env.kafkaBrokers, logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    const msg = createMessage('orders.orders.v1', 'OrderConfirmed', { order_id: '65f0000000000000000000ff', user_id: cart.user_id, cart_id: cart.cart_id, checkout_id: cart.cart_id }, { correlation_id: 'saga-cart', causation_id: null });
    for (let i = 0; i < 2; i++) await producer.send({ topic: msg.topic, messages: [{ key: msg.key, value: JSON.stringify(msg.envelope) }] });
    await producer.disconnect();

    await waitFor(async () => ((await (await json('GET', `/carts/${cart.cart_id}`)).json()) as { status: string }).status === 'ordered', 60_000, 'cart ordered');
    const ordered = (await (await json('GET', `/carts?user_id=${cart.user_id}&status=ordered`)).json()) as { cart_ids: string[] };
    expect(ordered.cart_ids).toEqual([cart.cart_id]);
    const active = (await (await json('GET', `/carts?user_id=${cart.user_id}&status=active`)).json()) as { cart_ids: string[] };
    expect(active.cart_ids).toEqual([]);
    // Edits are refused once the cart is ordered.
    expect((await json('PUT', `/carts/${cart.cart_id}/items/${product}`, { name: 'x', qty: 1, unit_price: '1.00' })).status).toBe(409);
  });
});
