import { CartsHarness, oid, type Who } from '../test/harness';
import { ProductsRepository } from './products.repository';

/** The carts' own product table fed by catalog.products.v1 (real Kafka + Cassandra), and PUT items priced from it. */
describe('carts product table and item pricing (real Cassandra + Kafka)', () => {
  const h = new CartsHarness();
  let repo: ProductsRepository;
  let alice: Who;

  beforeAll(async () => {
    await h.start();
    repo = h.app.get(ProductsRepository);
    alice = await h.as('alice');
  });
  afterAll(() => h.stop());

  it('converges on the newest version whatever the order and duplication of catalog events', async () => {
    const p = oid(0x1001);
    for (const v of [3, 1, 2, 3, 1, 2]) await h.product(p, v, v * 100_00, { name: `v${v}` });
    await h.drained('catalog.products.v1');
    expect(await repo.get(p)).toEqual({ product_id: p, name: 'v3', category_id: expect.any(String), price: 300_00, version: 3 });
  });

  it('a deleted product disappears, and a late older event does not bring it back', async () => {
    const p = oid(0x1002);
    await h.product(p, 1, 500_00);
    await h.publish('catalog.products.v1', 'ProductDeleted', { product_id: p, version: 2, category_id: oid(0xca7), ancestors: [oid(0xca7)], created_at: '2026-11-21T10:00:00.000Z', deleted_at: '2026-11-21T11:00:00.000Z' });
    await h.product(p, 1, 500_00);
    await h.drained('catalog.products.v1');
    expect(await repo.get(p)).toBeNull();
    const cart = await h.createCart();
    const r = await h.http('PUT', `/carts/${cart}/items/${p}`, { qty: 1 }, alice);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'CARTS.PRODUCT_NOT_FOUND', errors: [{ field: 'params.product_id' }] });
  });

  it('prices a line from the table, shows the current price, and refuses a client price naming the field', async () => {
    const p = oid(0x1003);
    await h.product(p, 1, 3_789_90, { name: 'Смартфон X' });
    const cart = await h.createCart();
    await h.waitForPrice(cart, p, '3789.90');

    const attack = await h.http('PUT', `/carts/${cart}/items/${p}`, { qty: 1, unit_price: '0.01' }, alice);
    expect(attack.status).toBe(400);
    expect(attack.body).toMatchObject({ code: 'CARTS.CLIENT_PRICE_REJECTED', errors: [{ field: 'body.unit_price' }] });

    const put = await h.http('PUT', `/carts/${cart}/items/${p}`, { qty: 2 }, alice);
    expect(put.status).toBe(200);
    expect(put.body['items']).toEqual({ [p]: { name: 'Смартфон X', qty: 2, unit_price: '3789.90', line_total: '7579.80', available: null, purchasable: true } });
    expect(put.body['total']).toBe('7579.80');

    // A price change in the catalog shows in the cart at once.
    await h.product(p, 2, 3_500_00, { priceChangedFrom: 3_789_90, name: 'Смартфон X' });
    await h.drained('catalog.products.v1');
    expect((await h.http('GET', `/carts/${cart}`, undefined, alice)).body['total']).toBe('7000.00');
  });

  it('concurrent puts of different products all land (whole-cart writes guarded by the revision)', async () => {
    const ids = Array.from({ length: 6 }, (_, i) => oid(0x1100 + i));
    for (const id of ids) await h.product(id, 1, 1_00);
    await h.drained('catalog.products.v1');
    const cart = await h.createCart();
    const answers = await Promise.all(ids.map((id) => h.http('PUT', `/carts/${cart}/items/${id}`, { qty: 1 }, alice)));
    expect(answers.filter((a) => a.status !== 200).map((a) => a.body['code'])).toEqual(answers.filter((a) => a.status !== 200).map(() => 'CARTS.CONCURRENT_CHANGE'));
    const landed = answers.filter((a) => a.status === 200).length;
    expect(landed).toBeGreaterThanOrEqual(1);
    expect(Object.keys((await h.http('GET', `/carts/${cart}`, undefined, alice)).body['items'] as object)).toHaveLength(landed);
  });

  it('shows zone availability from StockLevelChanged (latest version wins) and refuses more than is known to be left', async () => {
    const p = oid(0x1004);
    await h.product(p, 1, 100_00);
    await h.publish('inventory.events.v1', 'StockLevelChanged', { product_id: p, zone: 'SPB', available: 1, version: 7 });
    await h.publish('inventory.events.v1', 'StockLevelChanged', { product_id: p, zone: 'SPB', available: 50, version: 3 });
    await h.publish('inventory.events.v1', 'StockLevelChanged', { product_id: p, zone: 'MSK', available: 9, version: 1 });
    await h.drained('inventory.events.v1');
    await h.drained('catalog.products.v1');
    const cart = await h.createCart('SPB');
    const ok = await h.http('PUT', `/carts/${cart}/items/${p}`, { qty: 1 }, alice);
    expect(ok.status).toBe(200);
    expect((ok.body['items'] as Record<string, { available: number }>)[p]?.available).toBe(1);
    const tooMany = await h.http('PUT', `/carts/${cart}/items/${p}`, { qty: 2 }, alice);
    expect(tooMany.status).toBe(409);
    expect(tooMany.body).toMatchObject({ code: 'CARTS.INSUFFICIENT_STOCK', errors: [{ field: 'body.qty' }] });
  });

  it.each([
    ['fractional qty', { qty: 1.5 }, 'body.qty'],
    ['negative qty', { qty: -1 }, 'body.qty'],
    ['zero qty', { qty: 0 }, 'body.qty'],
    ['qty as a string', { qty: '1' }, 'body.qty'],
    ['operator-like qty', { qty: { $gt: 0 } }, 'body.qty'],
    ['operator-like key', { qty: 1, $where: 'sleep(1000)' }, 'body.$where'],
    ['a client name', { qty: 1, name: 'free phone' }, 'body.name'],
    ['no body fields', {}, 'body.qty'],
    ['a JSON array', [1], 'body'],
    ['a quantity above the line maximum', { qty: 100 }, 'body.qty'],
  ])('refuses %s with 400 naming the field, writing nothing', async (_n, body, field) => {
    const p = oid(0x1003);
    const cart = await h.createCart();
    const r = await h.http('PUT', `/carts/${cart}/items/${p}`, body, alice);
    expect(r.status).toBe(400);
    expect((r.body['errors'] as { field: string }[]).map((e) => e.field)).toContain(field);
    expect((await h.http('GET', `/carts/${cart}`, undefined, alice)).body['items']).toEqual({});
  });

  it('refuses unknown zones, owner fields, malformed ids, unknown carts, malformed JSON and oversized bodies', async () => {
    // NSK matches the documented zone code but is not served here (ZONES): 422, the document cannot state it.
    expect(await h.http('POST', '/carts', { zone: 'NSK' }, alice)).toMatchObject({ status: 422, body: { code: 'CARTS.UNKNOWN_ZONE', errors: [{ field: 'body.zone' }] } });
    expect(await h.http('POST', '/carts', { zone: 'msk' }, alice)).toMatchObject({ status: 400, body: { errors: [{ field: 'body.zone' }] } });
    // The owner is the caller: an id in the body is an unknown field, operator or not.
    for (const body of [{ zone: 'MSK', user_id: 'u-1' }, { zone: 'MSK', user_id: { $ne: null } }, { zone: 'MSK', session_id: '6f1c1a52-3b7e-4c55-9c1d-8d8f6c1e2a10' }]) {
      const r = await h.http('POST', '/carts', body, alice);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'COMMON.VALIDATION_FAILED', errors: [{ field: `body.${Object.keys(body)[1]}` }] });
    }
    const badId = await h.http('GET', '/carts/not-a-uuid', undefined, alice);
    expect(badId.status).toBe(400);
    expect(badId.body).toMatchObject({ errors: [{ field: 'params.id' }] });
    const badProduct = await h.http('PUT', `/carts/${await h.createCart()}/items/xyz`, { qty: 1 }, alice);
    expect(badProduct.body).toMatchObject({ errors: [{ field: 'params.product_id' }] });
    const unknown = await h.http('GET', '/carts/00000000-0000-4000-8000-000000000000', undefined, alice);
    expect(unknown.status).toBe(404);
    expect(unknown.body['code']).toBe('CARTS.CART_NOT_FOUND');
    expect((await h.http('POST', '/carts', '{"zone":', alice)).status).toBe(400);
    expect((await h.http('POST', '/carts', { zone: 'MSK', pad: 'u'.repeat(1_000_000) }, alice)).status).toBe(413);
    // No user_id query any more: the caller's own carts only.
    const byQuery = await h.http('GET', '/carts?user_id=u-1', undefined, alice);
    expect(byQuery.status).toBe(400);
    // (the platform names unknown query keys in the message of the `query` problem, not one field each)
    expect(byQuery.body).toMatchObject({ code: 'COMMON.VALIDATION_FAILED', errors: [{ field: 'query', message: expect.stringContaining('user_id') }] });
    expect((await h.http('GET', '/carts?status[$ne]=x', undefined, alice)).status).toBe(400);
  });

  it('refuses a line beyond the cart limit, naming the product', async () => {
    const small = new CartsHarness({ CART_MAX_LINES: '2' });
    await small.start();
    try {
      const ids = [oid(0x2001), oid(0x2002), oid(0x2003)];
      for (const id of ids) await small.product(id, 1, 10_00);
      await small.drained('catalog.products.v1');
      const cart = await small.createCart();
      expect((await small.http('PUT', `/carts/${cart}/items/${ids[0]}`, { qty: 1 }, alice)).status).toBe(200);
      expect((await small.http('PUT', `/carts/${cart}/items/${ids[1]}`, { qty: 1 }, alice)).status).toBe(200);
      const third = await small.http('PUT', `/carts/${cart}/items/${ids[2]}`, { qty: 1 }, alice);
      expect(third.status).toBe(409);
      expect(third.body).toMatchObject({ code: 'CARTS.TOO_MANY_LINES', errors: [{ field: 'params.product_id' }] });
      expect((await small.http('PUT', `/carts/${cart}/items/${ids[1]}`, { qty: 5 }, alice)).status).toBe(200);
    } finally {
      await small.stop();
    }
  });
});
