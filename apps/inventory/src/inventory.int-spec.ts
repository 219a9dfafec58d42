import { Kafka } from 'kafkajs';
import { collectFrom, header, testEnv, waitFor } from '@mw/testing';
import { StockRepository } from './stock/stock.repository';
import { StockDoc } from './stock/stock';
import { ifMatch, InventoryHarness, oid, restockKey } from './test/harness';

/** The service end to end: HTTP API and the command protocol through real Kafka and MongoDB. */
describe('inventory service', () => {
  const h = new InventoryHarness();
  const p1 = oid(0xd1, 1);
  const p2 = oid(0xd1, 2);

  beforeAll(async () => {
    await h.start(1);
    expect((await h.http('POST', `/stock/${p1}/MSK/restock`, { as: 'stan', headers: restockKey(), body: { qty: 10, reason: 'delivery' } })).status).toBe(201);
    expect((await h.http('POST', `/stock/${p2}/MSK/restock`, { as: 'stan', headers: restockKey(), body: { qty: 3, reason: 'delivery' } })).status).toBe(201);
  }, 180_000);
  afterAll(() => h.stop());

  const answer = (orderId: string, type: string) => waitFor(async () => h.eventsFor(orderId, type)[0], 30_000, `${type} for ${orderId}`);

  describe('HTTP', () => {
    it('reads stock of a product in every configured zone, zero where none: staff see the whole level', async () => {
      for (const who of ['stan', 'otto', 'sue'] as const) {
        const res = await h.http('GET', `/stock/${p1}`, { as: who });
        expect(res.status).toBe(200);
        expect(res.body).toEqual([
          expect.objectContaining({ zone: 'MSK', available: 10, reserved: 0, committed: 0 }),
          expect.objectContaining({ zone: 'SPB', available: 0, version: 0, updated_at: null }),
          expect.objectContaining({ zone: 'EKB', available: 0 }),
        ]);
      }
    });

    it('anyone else (no token, a customer) sees availability only — reserved and committed are sales figures', async () => {
      for (const who of [undefined, 'alice'] as const) {
        const res = await h.http('GET', `/stock/${p1}`, { as: who });
        expect(res.status).toBe(200);
        expect(res.body).toEqual([
          { product_id: p1, zone: 'MSK', available: 10 },
          { product_id: p1, zone: 'SPB', available: 0 },
          { product_id: p1, zone: 'EKB', available: 0 },
        ]);
      }
      // a token, when sent, must be valid
      expect((await h.http('GET', `/stock/${p1}`, { headers: { authorization: 'Bearer a.b.c' } })).status).toBe(401);
    });

    it('sets a counted level as an adjustment and lists low stock per zone', async () => {
      const p = oid(0xd1, 3);
      await h.http('POST', `/stock/${p}/SPB/restock`, { as: 'stan', headers: restockKey(), body: { qty: 9, reason: 'delivery' } });
      const set = await h.http('PUT', `/stock/${p}/SPB`, { as: 'stan', headers: ifMatch(1), body: { available: 2, reason: 'stock-take: 7 damaged' } });
      expect(set.body).toMatchObject({ available: 2 });
      const low = await h.http('GET', '/low-stock?zone=SPB&threshold=5', { as: 'stan' });
      expect((low.body['items'] as { product_id: string }[]).map((i) => i.product_id)).toContain(p);
      await waitFor(async () => ((await h.http('GET', `/ledger/${p}/SPB`, { as: 'stan' })).body as unknown as unknown[]).length === 2, 10_000, 'ledger flushed');
      const ledger = await h.http('GET', `/ledger/${p}/SPB`, { as: 'otto' });
      expect(ledger.status).toBe(200);
      expect(ledger.body).toEqual([
        expect.objectContaining({ kind: 'adjust', qty: -7, reason: 'stock-take: 7 damaged', product_id: p, zone: 'SPB' }),
        expect.objectContaining({ kind: 'restock', qty: 9, reason: 'delivery' }),
      ]);
      expect((await h.http('GET', `/ledger/check?product_id=${p}`, { as: 'otto' })).body).toMatchObject({ ok: true, checked: 1 });
    });

    const bad = oid(1, 1);
    it.each<[string, string, string, { as?: 'stan' | 'otto' | 'sue'; body?: unknown; headers?: Record<string, string> }, string]>([
      ['operator injection in the body', 'POST', `/stock/${bad}/MSK/restock`, { as: 'stan', headers: restockKey(), body: { qty: { $gt: 0 }, reason: 'x' } }, 'body.qty'],
      ['an unknown field', 'POST', `/stock/${bad}/MSK/restock`, { as: 'stan', headers: restockKey(), body: { qty: 1, reason: 'x', $where: '1' } }, 'body.$where'],
      ['operator injection in the query', 'GET', '/low-stock?zone=MSK&threshold[$gt]=1', { as: 'stan' }, 'threshold[$gt]'],
      ['operator injection in the ledger check', 'GET', '/ledger/check?product_id[$ne]=x', { as: 'otto' }, 'product_id[$ne]'],
      ['a malformed product id', 'GET', '/stock/not-an-id', {}, 'params.productId'],
      ['a malformed product id in the ledger', 'GET', '/ledger/not-an-id/MSK', { as: 'stan' }, 'params.productId'],
      ['a malformed order id', 'GET', '/reservations/42', { as: 'sue' }, 'params.orderId'],
      ['a malformed zone', 'PUT', `/stock/${bad}/msk`, { as: 'stan', body: { available: 1, reason: 'x' } }, 'params.zone'],
      ['a negative level', 'PUT', `/stock/${bad}/MSK`, { as: 'stan', body: { available: -1, reason: 'x' } }, 'body.available'],
      ['a fractional level', 'PUT', `/stock/${bad}/MSK`, { as: 'stan', body: { available: 2.5, reason: 'x' } }, 'body.available'],
      ['a negative restock', 'POST', `/stock/${bad}/MSK/restock`, { as: 'stan', headers: restockKey(), body: { qty: -5, reason: 'x' } }, 'body.qty'],
      ['a zero restock', 'POST', `/stock/${bad}/MSK/restock`, { as: 'stan', headers: restockKey(), body: { qty: 0, reason: 'x' } }, 'body.qty'],
      ['a fractional restock', 'POST', `/stock/${bad}/MSK/restock`, { as: 'stan', headers: restockKey(), body: { qty: 1.5, reason: 'x' } }, 'body.qty'],
      ['a restock without a reason', 'POST', `/stock/${bad}/MSK/restock`, { as: 'stan', headers: restockKey(), body: { qty: 1, reason: ' ' } }, 'body.reason'],
      ['a restock that is not JSON', 'POST', `/stock/${bad}/MSK/restock`, { as: 'stan', headers: restockKey(), body: '{"qty":' }, 'body'],
      ['a low-stock listing without a zone', 'GET', '/low-stock?threshold=5', { as: 'stan' }, 'query.zone'],
      ['a low-stock limit of 0', 'GET', '/low-stock?zone=MSK&limit=0', { as: 'otto' }, 'query.limit'],
      ['a ledger limit above 1000', 'GET', `/ledger/${bad}/MSK?limit=1001`, { as: 'otto' }, 'query.limit'],
    ])('answers 400 with a JSON body naming the field for %s', async (_n, method, path, opts, field) => {
      const res = await h.http(method, path, opts);
      expect(res.status).toBe(400);
      // The field is named by its path, or (an unknown key such as `threshold[$gt]`) in the message.
      expect(JSON.stringify(res.body['errors'])).toContain(field);
    });

    it.each([
      ['a restock', 'POST', `/stock/${p1}/NSK/restock`, { qty: 1, reason: 'x' }, 'params.zone', restockKey()],
      ['a stock-take', 'PUT', `/stock/${p1}/NSK`, { available: 1, reason: 'x' }, 'params.zone', ifMatch(0)],
      ['a zone level', 'GET', `/stock/${p1}/NSK`, undefined, 'params.zone', {}],
      ['a low-stock listing', 'GET', '/low-stock?zone=NSK', undefined, 'query.zone', {}],
    ])('refuses an unknown zone in %s with a 422 and its code, naming the field', async (_n, method, path, body, field, headers) => {
      // well-formed (the document's pattern) but not served here: zones are configuration (ADR 0007: 400 or 422)
      const res = await h.http(method, path, { as: 'stan', body, headers });
      expect(res).toMatchObject({ status: 422, body: { code: 'INVENTORY.UNKNOWN_ZONE', errors: [{ field }] } });
    });

    it('wrote nothing for the refused input', async () => {
      expect(await h.db.collection('stock').countDocuments({ product_id: bad })).toBe(0);
      expect(await h.db.collection('stock').countDocuments({ zone: 'NSK' })).toBe(0);
    });
  });

  describe('commands', () => {
    it('reserves all lines or none, undoing the lines already held on a short line', async () => {
      // Both lines are in stock when the command is sent; the later line (by product id) is cut by a
      // stock-take right before the order's first holds. The one-commit transaction (ADR 0015 §7)
      // then holds nothing and aborts; on the staged path, in the one bulk, the first line wins its
      // guard and the later one loses it: the held line must go back.
      const [first, later] = [oid(0xd1, 4), oid(0xd1, 5)];
      await h.http('POST', `/stock/${first}/MSK/restock`, { as: 'stan', headers: restockKey(), body: { qty: 10, reason: 'delivery' } });
      await h.http('POST', `/stock/${later}/MSK/restock`, { as: 'stan', headers: restockKey(), body: { qty: 5, reason: 'delivery' } });
      const order = oid(0xe1, 1);
      const stock = h.apps[0]!.get(StockRepository);
      const holdMany = stock.holdMany.bind(stock);
      const holdAll = stock.holdAll.bind(stock);
      let cut = false;
      stock.holdMany = async (orders, session) => {
        if (!cut && orders.some((o) => o.orderId === order)) {
          cut = true;
          expect((await h.http('PUT', `/stock/${later}/MSK`, { as: 'stan', headers: ifMatch(1), body: { available: 3, reason: 'stock-take: 2 damaged' } })).status).toBe(200);
        }
        return holdMany(orders, session);
      };
      let whenLaterLineHeld: StockDoc | null = null;
      stock.holdAll = async (zone, lines, orderId, expiresAt) => {
        if (orderId !== order) return holdAll(zone, lines, orderId, expiresAt);
        whenLaterLineHeld = await h.db.collection<StockDoc>('stock').findOne({ _id: `${first}:MSK` });
        return holdAll(zone, lines, orderId, expiresAt);
      };
      try {
        await h.send([{ type: 'ReserveStock', payload: { order_id: order, zone: 'MSK', lines: [{ product_id: later, qty: 5 }, { product_id: first, qty: 4 }], hold_seconds: 600 } }]);
        const rejected = await answer(order, 'StockRejected');
        expect(rejected.payload).toMatchObject({ code: 'INVENTORY.INSUFFICIENT_STOCK', shortages: [{ product_id: later, requested: 5, available: 3 }] });
      } finally {
        stock.holdMany = holdMany;
        stock.holdAll = holdAll;
      }
      // Held before the short line …
      expect(whenLaterLineHeld).toMatchObject({ available: 6, reserved: 4, reservations: [expect.objectContaining({ order_id: order, qty: 4 })] });
      // … and given back after it.
      await waitFor(async () => {
        const doc = await h.db.collection<StockDoc>('stock').findOne({ _id: `${first}:MSK` });
        return doc?.available === 10 && doc.reserved === 0 && doc.reservations.length === 0;
      }, 30_000, 'the held line given back');
      await waitFor(async () => (await h.db.collection('ledger').countDocuments({ order_id: order })) === 2, 30_000, 'ledger flushed');
      const moves = await h.db.collection<{ kind: string; product_id: string; qty: number }>('ledger').find({ order_id: order }).sort({ at: 1 }).toArray();
      expect(moves.map((m) => [m.kind, m.product_id, m.qty])).toEqual([['reserve', first, 4], ['release', first, 4]]);
      expect(((await h.http('GET', `/stock/${later}`, { as: 'stan' })).body as unknown as { reserved: number }[])[0]?.reserved).toBe(0);
      expect((await h.http('GET', `/ledger/check?product_id=${first}`, { as: 'service' })).body).toMatchObject({ ok: true });
    });

    it('reserves, ignores a duplicate, commits once, and answers a second commit with nothing new', async () => {
      const order = oid(0xe1, 2);
      const reserve = { type: 'ReserveStock' as const, payload: { order_id: order, zone: 'MSK', lines: [{ product_id: p1, qty: 2 }, { product_id: p2, qty: 1 }], hold_seconds: 600 } };
      await h.send([reserve, reserve, { type: 'CommitStock', payload: { order_id: order } }, { type: 'CommitStock', payload: { order_id: order } }]);
      const reserved = await answer(order, 'StockReserved');
      expect(reserved.key).toBe(order);
      await answer(order, 'StockCommitted');
      await h.send([{ type: 'ReleaseStock', payload: { order_id: order } }]);
      await new Promise((r) => setTimeout(r, 1500));
      expect(h.eventsFor(order).map((e) => e.type).sort()).toEqual(['StockCommitted', 'StockReserved']);
      const res = await h.http('GET', `/reservations/${order}`, { as: 'sue' });
      expect(res.body).toMatchObject({ status: 'committed', lines: [{ product_id: p1, qty: 2 }, { product_id: p2, qty: 1 }] });
      expect(((await h.http('GET', `/stock/${p1}`, { as: 'stan' })).body as unknown as { committed: number }[])[0]?.committed).toBe(2);
    });

    it('release is idempotent; commit after release is an error event with a code', async () => {
      const order = oid(0xe1, 3);
      await h.send([
        { type: 'ReserveStock', payload: { order_id: order, zone: 'MSK', lines: [{ product_id: p1, qty: 1 }], hold_seconds: 600 } },
        { type: 'ReleaseStock', payload: { order_id: order } },
        { type: 'ReleaseStock', payload: { order_id: order } },
        { type: 'CommitStock', payload: { order_id: order } },
        { type: 'CommitStock', payload: { order_id: order } },
      ]);
      const failed = await answer(order, 'StockCommitFailed');
      expect(failed.payload['code']).toBe('INVENTORY.RESERVATION_RELEASED');
      await new Promise((r) => setTimeout(r, 1000));
      expect(h.eventsFor(order).map((e) => e.type)).toEqual(['StockReserved', 'StockReleased', 'StockCommitFailed']);
      expect(h.eventsFor(order, 'StockReleased')[0]?.payload['reason']).toBe('compensation');
    });

    it('release of an unknown order succeeds as a no-op, commit of one fails with RESERVATION_NOT_FOUND', async () => {
      await h.send([{ type: 'ReleaseStock', payload: { order_id: oid(0xe1, 4) } }, { type: 'CommitStock', payload: { order_id: oid(0xe1, 5) } }]);
      expect((await answer(oid(0xe1, 4), 'StockReleased')).payload['reason']).toBe('compensation');
      expect((await answer(oid(0xe1, 5), 'StockCommitFailed')).payload['code']).toBe('INVENTORY.RESERVATION_NOT_FOUND');
    });

    it.each([
      ['an unknown zone', { zone: 'NSK', lines: [{ product_id: oid(0xd1, 1), qty: 1 }] }, 'INVENTORY.UNKNOWN_ZONE'],
      ['an unknown product', { zone: 'MSK', lines: [{ product_id: oid(0xdd, 1), qty: 1 }] }, 'INVENTORY.UNKNOWN_PRODUCT'],
      ['qty above the configured limit', { zone: 'MSK', lines: [{ product_id: oid(0xd1, 1), qty: 5000 }] }, 'INVENTORY.QTY_LIMIT_EXCEEDED'],
      ['a negative qty', { zone: 'MSK', lines: [{ product_id: oid(0xd1, 1), qty: -1 }] }, 'INVENTORY.INVALID_COMMAND'],
      ['a zero qty', { zone: 'MSK', lines: [{ product_id: oid(0xd1, 1), qty: 0 }] }, 'INVENTORY.INVALID_COMMAND'],
      ['a fractional qty', { zone: 'MSK', lines: [{ product_id: oid(0xd1, 1), qty: 0.5 }] }, 'INVENTORY.INVALID_COMMAND'],
      ['a malformed product id', { zone: 'MSK', lines: [{ product_id: 'xyz', qty: 1 }] }, 'INVENTORY.INVALID_COMMAND'],
      ['too many lines', { zone: 'MSK', lines: Array.from({ length: 101 }, (_, i) => ({ product_id: oid(0xd9, i), qty: 1 })) }, 'INVENTORY.TOO_MANY_LINES'],
    ])('answers a ReserveStock with %s by StockRejected with a code, changing nothing', async (_n, payload, code) => {
      const order = oid(0xe2, Math.floor(Math.random() * 1e9));
      const envelope = {
        id: crypto.randomUUID(), type: 'ReserveStock', version: 1, occurred_at: new Date().toISOString(), correlation_id: 'c', causation_id: null,
        payload: { order_id: order, hold_seconds: 60, ...payload },
      };
      await h.sendRaw(order, JSON.stringify(envelope));
      expect((await answer(order, 'StockRejected')).payload['code']).toBe(code);
      const levels = (await h.http('GET', `/stock/${p1}`, { as: 'stan' })).body as unknown as { available: number; reserved: number }[];
      expect(levels[0]?.reserved).toBe(0);
    });

    it('dead-letters what it cannot read', async () => {
      await h.sendRaw('garbage-key', '{not json');
      const kafka = new Kafka({
        clientId: 'dlq-probe',
        brokers: [...h.config.KAFKA_BROKERS],
        sasl: testEnv().kafkaSasl,
      });
      const dlq = await collectFrom(kafka, [`${h.config.INVENTORY_COMMANDS_TOPIC}.dlq`], (all) => all.some((m) => m.message.key?.toString() === 'garbage-key'));
      const msg = dlq.find((m) => m.message.key?.toString() === 'garbage-key')!;
      expect(header(msg.message, 'x-dlq-error-code')).toBe('COMMON.UNPARSEABLE_MESSAGE');
    });

    it('publishes StockLevelChanged with the level and version for read models', async () => {
      const level = await waitFor(async () => h.events.filter((e) => e.type === 'StockLevelChanged' && e.payload['product_id'] === p1).at(-1), 30_000, 'a level event');
      expect(level.key).toBe(p1);
      const doc = ((await h.http('GET', `/stock/${p1}`, { as: 'stan' })).body as unknown as { available: number; version: number }[])[0]!;
      await waitFor(async () => h.events.some((e) => e.type === 'StockLevelChanged' && e.payload['product_id'] === p1 && e.payload['version'] === doc.version && e.payload['available'] === doc.available), 30_000, 'the current level published');
    });
  });
});
