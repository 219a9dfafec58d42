import { waitFor } from '@mw/testing';
import { StockDoc } from '../stock/stock';
import { InventoryHarness, oid, restockKey } from '../test/harness';
import { ReservationDoc } from './reservation';

const reason = 'cancelled_by_customer' as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * ReturnStock end to end (real Kafka, real MongoDB, the real service): a sold order's units go back
 * on sale once, the answer is StockReturned (again for a repeated command), an order never sold
 * gets StockReturnFailed, and nothing a late command does can hold or sell its lines again.
 */
describe('inventory returns (ReturnStock)', () => {
  // A small settled memory (the minimum): the late-command test pushes its order out of it first.
  const h = new InventoryHarness({ INVENTORY_SETTLED_KEEP: '10' });

  beforeAll(() => h.start(1), 180_000);
  afterAll(() => h.stop());

  const answer = (orderId: string, type: string) =>
    waitFor(async () => h.eventsFor(orderId, type)[0], 30_000, `${type} for ${orderId}`);
  const stock = async (p: string) => (await h.db.collection<StockDoc>('stock').findOne({ _id: `${p}:MSK` }))!;
  const counters = async (p: string) => {
    const { available, reserved, committed } = await stock(p);
    return { available, reserved, committed };
  };
  const order = (id: string) => h.db.collection<ReservationDoc>('reservations').findOne({ _id: id });
  const restock = async (p: string, qty: number) =>
    expect(
      (
        await h.http('POST', `/stock/${p}/MSK/restock`, {
          as: 'stan',
          headers: restockKey(),
          body: { qty, reason: 'delivery' },
        })
      ).status,
    ).toBe(201);
  const ledgerCheck = async (p: string) =>
    (await h.http('GET', `/ledger/check?product_id=${p}`, { as: 'otto' })).body;
  /** Movements of an order once the flusher moved them all to the ledger collection. */
  const movementsOf = async (orderId: string, count: number) => {
    const coll = h.db.collection<{ kind: string; product_id: string; qty: number; order_id: string }>(
      'ledger',
    );
    await waitFor(
      async () => (await coll.countDocuments({ order_id: orderId })) >= count,
      30_000,
      `${count} ledger entries of ${orderId}`,
    );
    await sleep(500); // a second flush pass would show an entry counted twice
    // the lines of one command share its time (one bulkWrite, unordered for holds): by product within it
    return (await coll.find({ order_id: orderId }).sort({ at: 1, product_id: 1 }).toArray()).map((m) => [
      m.kind,
      m.product_id,
      m.qty,
    ]);
  };
  async function sold(orderId: string, lines: { product_id: string; qty: number }[]): Promise<void> {
    await h.send([
      { type: 'ReserveStock', payload: { order_id: orderId, zone: 'MSK', lines, hold_seconds: 600 } },
      { type: 'CommitStock', payload: { order_id: orderId } },
    ]);
    await answer(orderId, 'StockCommitted');
    await waitFor(
      async () => (await order(orderId))?.pending === undefined,
      30_000,
      `sale of ${orderId} applied`,
    );
  }
  const returned = (orderId: string) =>
    waitFor(
      async () => {
        const doc = await order(orderId);
        return (
          doc?.status === 'returned' &&
          doc.pending === undefined &&
          h.eventsFor(orderId, 'StockReturned').length > 0
        );
      },
      30_000,
      `return of ${orderId} finished`,
    );

  it('commit then return: the units are available again, committed goes down, one StockReturned, StockLevelChanged, ledger balanced', async () => {
    const [p1, p2] = [oid(0xa1, 1), oid(0xa1, 2)];
    await restock(p1, 10);
    await restock(p2, 5);
    const o = oid(0xa2, 1);
    const lines = [
      { product_id: p1, qty: 2 },
      { product_id: p2, qty: 1 },
    ];
    await sold(o, lines);
    expect(await counters(p1)).toEqual({ available: 8, reserved: 0, committed: 2 });
    expect(await counters(p2)).toEqual({ available: 4, reserved: 0, committed: 1 });

    await h.send([{ type: 'ReturnStock', payload: { order_id: o, reason } }]);
    await returned(o);
    expect(await counters(p1)).toEqual({ available: 10, reserved: 0, committed: 0 });
    expect(await counters(p2)).toEqual({ available: 5, reserved: 0, committed: 0 });
    expect((await answer(o, 'StockReturned')).payload).toEqual({ order_id: o, zone: 'MSK', lines });
    expect((await h.http('GET', `/reservations/${o}`, { as: 'sue' })).body).toMatchObject({
      status: 'returned',
      return_reason: reason,
    });
    // Carts follow StockLevelChanged: the level after the return is published with its version.
    const { version } = await stock(p1);
    await waitFor(
      async () =>
        h.events.some(
          (e) =>
            e.type === 'StockLevelChanged' &&
            e.payload['product_id'] === p1 &&
            e.payload['available'] === 10 &&
            e.payload['version'] === version,
        ),
      30_000,
      'the level after the return',
    );
    expect(await movementsOf(o, 6)).toEqual([
      ['reserve', p1, 2],
      ['reserve', p2, 1],
      ['commit', p1, 2],
      ['commit', p2, 1],
      ['return', p1, 2],
      ['return', p2, 1],
    ]);
    expect(await ledgerCheck(p1)).toMatchObject({ ok: true, checked: 1 });
    expect(await ledgerCheck(p2)).toMatchObject({ ok: true, checked: 1 });
    expect((await stock(p1)).return_marks).toEqual([]);
    await sleep(1000);
    expect(h.eventsFor(o).map((e) => e.type)).toEqual(['StockReserved', 'StockCommitted', 'StockReturned']);
  });

  it('duplicate ReturnStock: the units move once, every command is answered StockReturned, one return movement per line', async () => {
    const p = oid(0xa1, 3);
    await restock(p, 6);
    const o = oid(0xa2, 2);
    await sold(o, [{ product_id: p, qty: 4 }]);
    const ret = { type: 'ReturnStock' as const, payload: { order_id: o, reason } };
    await h.send([ret, ret]); // a duplicate right behind the first
    await returned(o);
    await h.send([ret]); // and one after the return completed
    await waitFor(async () => h.eventsFor(o, 'StockReturned').length >= 3, 30_000, 'three answers');
    await sleep(1000);
    expect(await counters(p)).toEqual({ available: 6, reserved: 0, committed: 0 });
    const answers = h.eventsFor(o, 'StockReturned');
    expect(new Set(answers.map((e) => e.id)).size).toBe(3);
    for (const a of answers)
      expect(a.payload).toEqual({ order_id: o, zone: 'MSK', lines: [{ product_id: p, qty: 4 }] });
    expect(await movementsOf(o, 3)).toEqual([
      ['reserve', p, 4],
      ['commit', p, 4],
      ['return', p, 4],
    ]);
    expect(await ledgerCheck(p)).toMatchObject({ ok: true });
  });

  it('return of an order never sold: StockReturnFailed NOT_COMMITTED (reserved, released, expired, rejected), RESERVATION_NOT_FOUND (unknown); nothing moves', async () => {
    const p = oid(0xa1, 4);
    await restock(p, 5);
    const [reserved, released, expired, rejected, unknown] = [1, 2, 3, 4, 5].map((n) => oid(0xa3, n)) as [
      string,
      string,
      string,
      string,
      string,
    ];
    await h.send([
      {
        type: 'ReserveStock',
        payload: { order_id: reserved, zone: 'MSK', lines: [{ product_id: p, qty: 1 }], hold_seconds: 600 },
      },
      {
        type: 'ReserveStock',
        payload: { order_id: released, zone: 'MSK', lines: [{ product_id: p, qty: 1 }], hold_seconds: 600 },
      },
      { type: 'ReleaseStock', payload: { order_id: released } },
      {
        type: 'ReserveStock',
        payload: { order_id: expired, zone: 'MSK', lines: [{ product_id: p, qty: 1 }], hold_seconds: 1 },
      },
      {
        type: 'ReserveStock',
        payload: { order_id: rejected, zone: 'MSK', lines: [{ product_id: p, qty: 50 }], hold_seconds: 600 },
      },
    ]);
    await answer(reserved, 'StockReserved');
    await answer(released, 'StockReleased');
    await waitFor(
      async () => h.eventsFor(expired, 'StockReleased')[0]?.payload['reason'] === 'expired',
      30_000,
      'the 1 s hold expired',
    );
    await answer(rejected, 'StockRejected');
    await waitFor(
      async () =>
        (await order(expired))?.pending === undefined && (await order(released))?.pending === undefined,
      30_000,
      'holds back',
    );
    const before = await counters(p);
    expect(before).toEqual({ available: 4, reserved: 1, committed: 0 });

    await h.send(
      [reserved, released, expired, rejected, unknown].map((order_id) => ({
        type: 'ReturnStock' as const,
        payload: { order_id, reason },
      })),
    );
    for (const o of [reserved, released, expired, rejected])
      expect((await answer(o, 'StockReturnFailed')).payload).toEqual({
        order_id: o,
        code: 'INVENTORY.NOT_COMMITTED',
      });
    expect((await answer(unknown, 'StockReturnFailed')).payload).toEqual({
      order_id: unknown,
      code: 'INVENTORY.RESERVATION_NOT_FOUND',
    });
    await sleep(1000);
    expect(await counters(p)).toEqual(before);
    expect((await order(reserved))?.status).toBe('reserved');
    expect((await stock(p)).reservations.map((r) => r.order_id)).toEqual([reserved]);
    for (const o of [reserved, released, expired, rejected, unknown])
      expect(h.eventsFor(o, 'StockReturned')).toEqual([]);

    // The failed return changed nothing: the reserved order still sells and then returns normally.
    await h.send([
      { type: 'CommitStock', payload: { order_id: reserved } },
      { type: 'ReturnStock', payload: { order_id: reserved, reason } },
    ]);
    await returned(reserved);
    expect(await counters(p)).toEqual({ available: 5, reserved: 0, committed: 0 });
    // The unknown order is remembered: its late ReserveStock holds nothing.
    await h.send([
      {
        type: 'ReserveStock',
        payload: { order_id: unknown, zone: 'MSK', lines: [{ product_id: p, qty: 1 }], hold_seconds: 600 },
      },
    ]);
    expect((await answer(unknown, 'StockRejected')).payload['code']).toBe('INVENTORY.RESERVATION_RELEASED');
    expect(await counters(p)).toEqual({ available: 5, reserved: 0, committed: 0 });
    expect(await ledgerCheck(p)).toMatchObject({ ok: true });
  });

  it('after the return, a late ReserveStock, CommitStock or ReleaseStock holds and sells nothing again, even once the stock document forgot the order', async () => {
    const p = oid(0xa1, 5);
    await restock(p, 15);
    const o = oid(0xa2, 3);
    const reserve = {
      type: 'ReserveStock' as const,
      payload: { order_id: o, zone: 'MSK', lines: [{ product_id: p, qty: 3 }], hold_seconds: 600 },
    };
    await sold(o, [{ product_id: p, qty: 3 }]);
    await h.send([{ type: 'ReturnStock', payload: { order_id: o, reason } }]);
    await returned(o);
    // Twelve more sales on the document: more than INVENTORY_SETTLED_KEEP, the order leaves its `settled` memory.
    const others = Array.from({ length: 12 }, (_, i) => oid(0xa4, i));
    for (const other of others) await sold(other, [{ product_id: p, qty: 1 }]);
    expect((await stock(p)).settled?.map((m) => m.order_id)).not.toContain(o);
    const events = h.eventsFor(o).length;

    await h.send([
      reserve,
      { type: 'CommitStock', payload: { order_id: o } },
      reserve,
      { type: 'CommitStock', payload: { order_id: o } },
      { type: 'ReleaseStock', payload: { order_id: o } },
    ]);
    await sleep(2000); // the sweeper ran several passes meanwhile (orphan holds, pending work)
    expect(await counters(p)).toEqual({ available: 3, reserved: 0, committed: 12 });
    expect((await stock(p)).reservations).toEqual([]);
    expect(await order(o)).toMatchObject({ status: 'returned' });
    expect(h.eventsFor(o).length).toBe(events);
    expect(h.eventsFor(o).map((e) => e.type)).toEqual(['StockReserved', 'StockCommitted', 'StockReturned']);
    // Not even held for a moment: the order's movements end with its return.
    expect(await movementsOf(o, 3)).toEqual([
      ['reserve', p, 3],
      ['commit', p, 3],
      ['return', p, 3],
    ]);
    // The units are on sale for somebody else.
    const other = oid(0xa2, 4);
    await h.send([{ ...reserve, payload: { ...reserve.payload, order_id: other } }]);
    await answer(other, 'StockReserved');
    expect(await counters(p)).toEqual({ available: 0, reserved: 3, committed: 12 });
    expect(await ledgerCheck(p)).toMatchObject({ ok: true });
  });
});
