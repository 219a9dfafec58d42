import { InventoryHarness, oid, restockKey } from '../test/harness';

/**
 * GET /availability (issue 33): what a listing shows on its product cards — a page of products in
 * one zone, in one read — against a real instance and the real MongoDB replica set, over HTTP
 * without a token.
 */
describe('GET /availability: a page of products in one zone', () => {
  const h = new InventoryHarness();
  beforeAll(() => h.start(1, { consumer: false }), 180_000);
  afterAll(() => h.stop());

  const [stocked, other, never] = [1, 2, 3].map((i) => oid(0xa7, i)) as [string, string, string];
  const restock = async (p: string, zone: string, qty: number) =>
    expect(
      (
        await h.http('POST', `/stock/${p}/${zone}/restock`, {
          as: 'stan',
          headers: restockKey(),
          body: { qty, reason: 'delivery' },
        })
      ).status,
    ).toBe(201);

  beforeAll(async () => {
    await restock(stocked, 'MSK', 7);
    await restock(other, 'SPB', 3);
  });

  it('answers anyone the available units of each product in the order asked, 0 where never stocked in the zone', async () => {
    const r = await h.http(
      'GET',
      `/availability?zone=MSK&product_ids=${never},${stocked},${other},${stocked}`,
    );
    expect(r).toMatchObject({
      status: 200,
      body: {
        zone: 'MSK',
        items: [
          { product_id: never, available: 0 },
          { product_id: stocked, available: 7 },
          { product_id: other, available: 0 },
        ],
      },
    });
    expect((await h.http('GET', `/availability?zone=SPB&product_ids=${stocked},${other}`)).body).toEqual({
      zone: 'SPB',
      items: [
        { product_id: stocked, available: 0 },
        { product_id: other, available: 3 },
      ],
    });
  });

  it('follows a restock at once (read from the primary)', async () => {
    await restock(never, 'EKB', 2);
    expect((await h.http('GET', `/availability?zone=EKB&product_ids=${never}`)).body).toEqual({
      zone: 'EKB',
      items: [{ product_id: never, available: 2 }],
    });
  });

  it('refuses a zone it does not serve with a 422 naming query.zone', async () => {
    const r = await h.http('GET', `/availability?zone=NSK&product_ids=${stocked}`);
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body)).toContain('query.zone');
    expect(JSON.stringify(r.body)).toContain('INVENTORY.UNKNOWN_ZONE');
  });

  it('refuses malformed or too many ids with a 400 naming query.product_ids', async () => {
    const tooMany = Array.from({ length: 101 }, (_, i) => oid(0xa8, i)).join(',');
    for (const ids of ['', 'XYZ', `${stocked},`, stocked.toUpperCase(), tooMany]) {
      const r = await h.http('GET', `/availability?zone=MSK&product_ids=${ids}`);
      expect({ ids: ids.slice(0, 30), status: r.status }).toEqual({ ids: ids.slice(0, 30), status: 400 });
      expect(JSON.stringify(r.body)).toContain('query.product_ids');
    }
    const hundred = Array.from({ length: 100 }, (_, i) => oid(0xa8, i)).join(',');
    expect((await h.http('GET', `/availability?zone=MSK&product_ids=${hundred}`)).status).toBe(200);
  });
});
