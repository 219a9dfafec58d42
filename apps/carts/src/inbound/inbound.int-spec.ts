import type { Client } from 'cassandra-driver';
import { createMessage } from '@mw/contracts';
import type { InboundRecord } from '@mw/messaging';
import { CASSANDRA } from '@mw/persistence';
import { collectFrom, header, uniqueName } from '@mw/testing';
import { ProductsRepository } from '../products/products.repository';
import { CartsHarness, oid } from '../test/harness';
import { InboundConsumer } from './inbound.consumer';

/**
 * Carts' consumer takes a chunk of one partition as one call (ADR 0060 "Consumers"), on the real
 * Cassandra and Kafka: the chunk is handed to the production consumer's handler as kafkajs would
 * hand it over, and the driver's statements are counted.
 */
describe('carts consume a partition batch at a time (real Cassandra + Kafka)', () => {
  const h = new CartsHarness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());

  let offset = 0;
  const record = (topic: string, type: string, key: string, value: string): InboundRecord => ({
    topic,
    partition: 0,
    offset: String(offset++),
    key,
    value: Buffer.from(value),
    headers: { 'x-message-type': Buffer.from(type) },
  });
  const level = (product: string, version: number, available: number): InboundRecord => {
    const m = createMessage(
      'inventory.events.v1',
      'StockLevelChanged',
      { product_id: product, zone: 'MSK', available, version },
      { correlation_id: uniqueName('corr'), causation_id: null },
    );
    return record(h.config.CARTS_STOCK_TOPIC, 'StockLevelChanged', m.key, JSON.stringify(m.envelope));
  };

  it("writes one row per (product, zone) at its newest level, passes the saga's replies over unparsed, dead-letters an invalid level", async () => {
    const p = oid(0x7001);
    const q = oid(0x7002);
    const marker = uniqueName('not-parsed');
    // a saga reply carts does not follow: its type header says so, and its value is not even JSON
    const reply = record(h.config.CARTS_STOCK_TOPIC, 'StockReserved', p, `{${marker}`);
    const invalid = createMessage(
      'inventory.events.v1',
      'StockLevelChanged',
      { product_id: q, zone: 'MSK', available: 1, version: 9 },
      { correlation_id: uniqueName('corr'), causation_id: null },
    );
    const bad = JSON.parse(JSON.stringify(invalid.envelope)) as { payload: { available: number } };
    bad.payload.available = -1;
    const records = [
      level(p, 1, 10),
      level(q, 1, 5),
      reply,
      level(p, 3, 7),
      level(p, 2, 9),
      record(h.config.CARTS_STOCK_TOPIC, 'StockLevelChanged', q, JSON.stringify(bad)),
    ];

    const db = h.app.get<Client>(CASSANDRA);
    const execute = jest.spyOn(db, 'execute');
    const batch = jest.spyOn(db, 'batch');
    try {
      await h.app.get(InboundConsumer).handleBatch(records);
      const levelWrite = (q: string) => /INTO stock_levels/.test(q);
      const alone = execute.mock.calls.map((c) => String(c[0])).filter(levelWrite);
      const batched = batch.mock.calls.map((c) => c[0].map((st) => (typeof st === 'string' ? st : st.query)).filter(levelWrite)).filter((qs) => qs.length > 0);
      // the newest level of each of the two products, both in one request (an unlogged batch)
      expect({ statements: alone.length + batched.flat().length, requests: alone.length + batched.length }).toEqual({ statements: 2, requests: 1 });
    } finally {
      execute.mockRestore();
      batch.mockRestore();
    }
    const repo = h.app.get(ProductsRepository);
    expect(await repo.stock(p, 'MSK')).toEqual({ product_id: p, zone: 'MSK', available: 7, version: 3 });
    expect(await repo.stock(q, 'MSK')).toEqual({ product_id: q, zone: 'MSK', available: 5, version: 1 });

    // the invalid level reaches the dead-letter topic with its reason; the reply, earlier in the chunk, never does
    const dlq = await collectFrom(
      h.kafka,
      [`${h.config.CARTS_STOCK_TOPIC}.dlq`],
      (all) => all.some((m) => m.message.value?.toString().includes(invalid.envelope.id)),
      60_000,
    );
    expect(dlq.filter((m) => m.message.value?.toString().includes(marker))).toHaveLength(0);
    const dead = dlq.find((m) => m.message.value?.toString().includes(invalid.envelope.id))!;
    expect(header(dead.message, 'x-dlq-error-code')).toMatch(/INVALID/);
  });

  it('applies a chunk of catalog events at once, the newest version of each product winning whatever their order', async () => {
    const a = oid(0x7101);
    const b = oid(0x7102);
    const product = (id: string, version: number, price: number): InboundRecord => {
      const created = '2026-11-21T10:00:00.000Z';
      const m = createMessage(
        'catalog.products.v1',
        version === 1 ? 'ProductCreated' : 'ProductUpdated',
        {
          product_id: id,
          version,
          name: `v${version}`,
          category_id: oid(0xca7),
          ancestors: [oid(0xca7)],
          price,
          currency: 'RUB',
          attributes: {},
          created_at: created,
          updated_at: created,
        },
        { correlation_id: uniqueName('corr'), causation_id: null },
      );
      return record(h.config.CARTS_PRODUCTS_TOPIC, m.envelope.type, m.key, JSON.stringify(m.envelope));
    };
    await h.app
      .get(InboundConsumer)
      .handleBatch([
        product(a, 2, 200_00),
        product(b, 1, 50_00),
        product(a, 1, 100_00),
        product(a, 3, 300_00),
        product(a, 2, 200_00),
      ]);
    const repo = h.app.get(ProductsRepository);
    expect(await repo.get(a)).toMatchObject({ name: 'v3', price: 300_00, version: 3 });
    expect(await repo.get(b)).toMatchObject({ name: 'v1', price: 50_00, version: 1 });
  });
});
