import { DEMO_USERS, waitFor } from '@mw/testing';
import { ifMatch, InventoryHarness, oid, restockKey } from '../test/harness';

const stan = { sub: DEMO_USERS.stan.id, role: 'stock_manager' };

/**
 * Stock writes that a client, a proxy or a person may repeat (issue 16, ADR 0040), over HTTP with
 * real Keycloak tokens against a real instance, MongoDB and Kafka: a retried restock adds once, a
 * stock-take replayed after a sale is refused, and both record who made them.
 */
describe('stock writes: idempotent restock, conditional stock-take, who did it', () => {
  const h = new InventoryHarness();
  beforeAll(() => h.start(1), 180_000);
  afterAll(() => h.stop());

  const level = async (p: string, zone = 'MSK') => {
    const r = await h.http('GET', `/stock/${p}/${zone}`, { as: 'stan' });
    expect(r.status).toBe(200);
    return { etag: r.headers.get('etag'), body: r.body };
  };
  const ledger = async (p: string, n: number, zone = 'MSK') =>
    waitFor(
      async () => {
        const r = await h.http('GET', `/ledger/${p}/${zone}`, { as: 'stan' });
        const entries = r.body as unknown as Record<string, unknown>[];
        return entries.length >= n ? entries : undefined;
      },
      15_000,
      `${n} ledger entries of ${p}`,
    );
  const ledgerOk = async (p: string) =>
    expect((await h.http('GET', `/ledger/check?product_id=${p}`, { as: 'otto' })).body).toMatchObject({
      ok: true,
      checked: 1,
    });

  describe('POST /stock/{id}/{zone}/restock with Idempotency-Key', () => {
    it('a retried restock answers the first answer and adds nothing; the ledger names stan and the key', async () => {
      const p = oid(0xd5, 1);
      const key = { 'idempotency-key': 'delivery-note-0042' };
      const body = { qty: 50, reason: 'delivery note 0042' };
      const first = await h.http('POST', `/stock/${p}/MSK/restock`, { as: 'stan', headers: key, body });
      expect(first).toMatchObject({ status: 201, body: { available: 50, version: 1 } });
      expect(first.headers.get('etag')).toBe('"1"');
      const retried = await h.http('POST', `/stock/${p}/MSK/restock`, { as: 'stan', headers: key, body });
      expect({ status: retried.status, body: retried.body, etag: retried.headers.get('etag') }).toEqual({
        status: 201,
        body: first.body,
        etag: '"1"',
      });
      // the same key on the same document after other changes still answers the first answer
      await h.http('POST', `/stock/${p}/MSK/restock`, {
        as: 'stan',
        headers: restockKey(),
        body: { qty: 5, reason: 'another delivery' },
      });
      expect(
        (await h.http('POST', `/stock/${p}/MSK/restock`, { as: 'stan', headers: key, body })).body,
      ).toEqual(first.body);
      expect((await level(p)).body).toMatchObject({ available: 55, version: 2 });
      const entries = await ledger(p, 2);
      expect(entries).toEqual([
        expect.objectContaining({ kind: 'restock', qty: 5, by: stan }),
        expect.objectContaining({
          kind: 'restock',
          qty: 50,
          reason: 'delivery note 0042',
          by: stan,
          idempotency_key: 'delivery-note-0042',
        }),
      ]);
      await ledgerOk(p);
    });

    it('retries racing each other (a first restock, so also the upsert) add the units once', async () => {
      const p = oid(0xd5, 2);
      const headers = { 'idempotency-key': 'race-1' };
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          h.http('POST', `/stock/${p}/SPB/restock`, {
            as: 'stan',
            headers,
            body: { qty: 7, reason: 'delivery' },
          }),
        ),
      );
      expect(answers.map((a) => `${a.status}:${a.body['available']}:${a.body['version']}`)).toEqual(
        Array(6).fill('201:7:1'),
      );
      expect((await level(p, 'SPB')).body).toMatchObject({ available: 7, version: 1 });
      await ledgerOk(p);
    });

    it('the key with another body is a 422 naming the header; no key is a 400 naming it; nothing is added', async () => {
      const p = oid(0xd5, 3);
      const headers = { 'idempotency-key': 'delivery-7' };
      expect(
        (
          await h.http('POST', `/stock/${p}/MSK/restock`, {
            as: 'stan',
            headers,
            body: { qty: 10, reason: 'delivery' },
          })
        ).status,
      ).toBe(201);
      const reused = await h.http('POST', `/stock/${p}/MSK/restock`, {
        as: 'stan',
        headers,
        body: { qty: 11, reason: 'delivery' },
      });
      expect(reused).toMatchObject({
        status: 422,
        body: { code: 'INVENTORY.IDEMPOTENCY_KEY_REUSED', errors: [{ field: 'headers.idempotency-key' }] },
      });
      const keyless = await h.http('POST', `/stock/${p}/MSK/restock`, {
        as: 'stan',
        body: { qty: 10, reason: 'delivery' },
      });
      expect(keyless).toMatchObject({
        status: 400,
        body: { code: 'COMMON.VALIDATION_FAILED', errors: [{ field: 'headers.idempotency-key' }] },
      });
      const malformed = await h.http('POST', `/stock/${p}/MSK/restock`, {
        as: 'stan',
        headers: { 'idempotency-key': '{"$ne":1}' },
        body: { qty: 10, reason: 'delivery' },
      });
      expect(malformed).toMatchObject({
        status: 400,
        body: { errors: [{ field: 'headers.idempotency-key' }] },
      });
      expect((await level(p)).body).toMatchObject({ available: 10, version: 1 });
    });
  });

  describe('PUT /stock/{id}/{zone} with If-Match', () => {
    it('a stock-take replayed after a sale is a 412 with the current ETag, and sets nothing back', async () => {
      const p = oid(0xd5, 4);
      const order = oid(0xe5, 4);
      await h.http('POST', `/stock/${p}/MSK/restock`, {
        as: 'stan',
        headers: restockKey(),
        body: { qty: 20, reason: 'delivery' },
      });
      const read = await level(p);
      expect(read.etag).toBe('"1"');
      const count = {
        as: 'stan' as const,
        headers: { 'if-match': read.etag! },
        body: { available: 18, reason: 'stock-take: 2 damaged' },
      };
      const take = await h.http('PUT', `/stock/${p}/MSK`, count);
      expect(take).toMatchObject({ status: 200, body: { available: 18, version: 2 } });
      expect(take.headers.get('etag')).toBe('"2"');
      // a sale of 3 units
      await h.send([
        {
          type: 'ReserveStock',
          payload: { order_id: order, zone: 'MSK', lines: [{ product_id: p, qty: 3 }], hold_seconds: 600 },
        },
      ]);
      await waitFor(async () => h.eventsFor(order, 'StockReserved')[0], 30_000, 'reserved');
      await h.send([{ type: 'CommitStock', payload: { order_id: order } }]);
      await waitFor(async () => h.eventsFor(order, 'StockCommitted')[0], 30_000, 'committed');
      // the same stock-take again (a client retry, a proxy replay): refused, available stays after the sale
      const replay = await h.http('PUT', `/stock/${p}/MSK`, count);
      expect(replay).toMatchObject({
        status: 412,
        body: { code: 'INVENTORY.STALE_VERSION', errors: [{ field: 'headers.if-match' }] },
      });
      expect(replay.headers.get('etag')).toBe('"4"');
      expect((await level(p)).body).toMatchObject({ available: 15, committed: 3, version: 4 });
      // a count made now, against the version read now, applies
      const fresh = await level(p);
      const recount = await h.http('PUT', `/stock/${p}/MSK`, {
        as: 'stan',
        headers: { 'if-match': fresh.etag! },
        body: { available: 14, reason: 'stock-take: 1 missing' },
      });
      expect(recount).toMatchObject({ status: 200, body: { available: 14, committed: 3, version: 5 } });
      const entries = await ledger(p, 5);
      expect(entries.filter((e) => e['kind'] === 'adjust')).toEqual([
        expect.objectContaining({ qty: -1, reason: 'stock-take: 1 missing', by: stan }),
        expect.objectContaining({ qty: -2, reason: 'stock-take: 2 damaged', by: stan }),
      ]);
      // reservation movements name their order, not a person
      expect(entries.filter((e) => e['kind'] === 'reserve' || e['kind'] === 'commit')).toEqual([
        expect.objectContaining({ kind: 'commit', order_id: order }),
        expect.objectContaining({ kind: 'reserve', order_id: order }),
      ]);
      expect(entries.find((e) => e['order_id'])).not.toHaveProperty('by');
      await ledgerOk(p);
    });

    it('no If-Match is a 428 naming it; a malformed one a 400; a zone never stocked is version "0"', async () => {
      const p = oid(0xd5, 5);
      const body = { available: 4, reason: 'stock-take' };
      const missing = await h.http('PUT', `/stock/${p}/EKB`, { as: 'stan', body });
      expect(missing).toMatchObject({
        status: 428,
        body: { code: 'COMMON.PRECONDITION_REQUIRED', errors: [{ field: 'headers.if-match' }] },
      });
      for (const bad of ['*', 'W/"0"', '0', '"0", "1"']) {
        const r = await h.http('PUT', `/stock/${p}/EKB`, { as: 'stan', headers: { 'if-match': bad }, body });
        expect({ bad, status: r.status, fields: r.body['errors'] }).toEqual({
          bad,
          status: 400,
          fields: [expect.objectContaining({ field: 'headers.if-match' })],
        });
      }
      expect(await h.db.collection('stock').countDocuments({ product_id: p })).toBe(0);
      expect((await level(p, 'EKB')).etag).toBe('"0"');
      expect((await h.http('PUT', `/stock/${p}/EKB`, { as: 'stan', headers: ifMatch(1), body })).status).toBe(
        412,
      );
      const created = await h.http('PUT', `/stock/${p}/EKB`, { as: 'stan', headers: ifMatch(0), body });
      expect(created).toMatchObject({ status: 200, body: { available: 4, version: 1 } });
      // two counts against the same version: one applies, the other is told the stock moved
      const both = await Promise.all(
        [5, 6].map((available) =>
          h.http('PUT', `/stock/${p}/EKB`, {
            as: 'stan',
            headers: ifMatch(1),
            body: { available, reason: 'stock-take' },
          }),
        ),
      );
      expect(both.map((r) => r.status).sort()).toEqual([200, 412]);
      await ledgerOk(p);
    });
  });
});
