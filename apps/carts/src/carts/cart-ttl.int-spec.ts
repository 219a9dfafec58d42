import { CartsHarness, oid, sleep, type Who } from '../test/harness';

/** A cart's TTL is the cart's, not a cell's (ADR 0060): CART_TTL_SECONDS=3 against the real Cassandra. */
describe('cart lifetime (real Cassandra, 3-second TTL)', () => {
  const h = new CartsHarness({ CART_TTL_SECONDS: '3' });
  const phone = oid(0x5001);
  let alice: Who;

  beforeAll(async () => {
    await h.start();
    alice = await h.as('alice');
    await h.product(phone, 1, 100_00);
    await h.drained('catalog.products.v1');
  });
  afterAll(() => h.stop());

  it('a cart being edited outlives its first TTL whole: status, zone and lookups included, and checks out', async () => {
    const cart = await h.createCart('MSK', alice);
    for (let i = 1; i <= 5; i++) {
      await sleep(1000);
      const r = await h.http('PUT', `/carts/${cart}/items/${phone}`, { qty: i }, alice);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: 'active', zone: 'MSK' });
    }
    // 5 s after creation, well past the 3 s TTL of its first write.
    expect((await h.http('GET', '/carts?status=active', undefined, alice)).body['cart_ids']).toEqual([cart]);
    const co = await h.http('POST', `/carts/${cart}/checkout`, undefined, alice);
    expect(co.status).toBe(202);
    expect((await h.http('GET', '/carts?status=checking_out', undefined, alice)).body['cart_ids']).toEqual([cart]);

    // Left alone, the whole cart and its lookup rows expire together.
    await sleep(3500);
    expect((await h.http('GET', `/carts/${cart}`, undefined, alice)).body).toMatchObject({ code: 'CARTS.CART_NOT_FOUND' });
    expect((await h.http('GET', '/carts?status=checking_out', undefined, alice)).body['cart_ids']).toEqual([]);
  });

  it('an expired cart answers 404 with a code to every call and cannot be resurrected by a write', async () => {
    const cart = await h.createCart('MSK', alice);
    await sleep(3500);
    for (const r of [
      await h.http('GET', `/carts/${cart}`, undefined, alice),
      await h.http('PUT', `/carts/${cart}/items/${phone}`, { qty: 1 }, alice),
      await h.http('POST', `/carts/${cart}/checkout`, undefined, alice),
    ]) {
      expect(r.status).toBe(404);
      expect(['CARTS.CART_NOT_FOUND', 'CARTS.CART_EXPIRED']).toContain(r.body['code']);
    }
    expect((await h.http('GET', `/carts/${cart}`, undefined, alice)).status).toBe(404);
  });
});
