import { oid } from '../test/harness';
import { countByKind, ledgerEntriesOf } from '../test/ledger-entries';
import { countedInventory } from '../test/services';
import { GroupCommitMode } from './one-commit';

/** The commands of a group in each mode: one transaction (ADR 0015 §7), or the resumable stages (ADR 0012 §4). */
const COMMANDS: Record<GroupCommitMode, { reserve: string[]; sell: string[] }> = {
  transaction: {
    reserve: ['insert reservations', 'update stock', 'commitTransaction'],
    sell: ['find reservations', 'update reservations', 'update stock', 'commitTransaction'],
  },
  stages: {
    reserve: ['insert reservations', 'update stock', 'update reservations'],
    sell: ['find reservations', 'update reservations', 'update stock', 'update reservations'],
  },
};

/**
 * Group commit of ReserveStock and CommitStock (ADR 0012 §4, ADR 0015 §7) on the real replica set,
 * in both modes: the commands a consumed batch holds take a fixed number of MongoDB commands
 * whatever their number, and every command that leaves the common path — a line that loses its
 * guard, a duplicate inside the batch, an order that exists, an expired or a sold order — gets
 * exactly the single path's answer (in `transaction` mode, after the aborted transaction left
 * nothing).
 */
describe.each(['transaction', 'stages'] as const)('inventory group commit (%s)', (mode) => {
  const { client, db, stock, reservations, service, counted } = countedInventory(`inventory_group_${mode}`, mode);
  const answers = async (order: string) =>
    ((await reservations.coll.findOne({ _id: order }))?._outbox ?? []).map(
      (m) => (JSON.parse(m.envelope) as { type: string; payload: Record<string, unknown> }),
    );
  /** The orders' ledger entries per kind, where they are: the ledger collection, or pending in the stock documents. */
  const entries = async (orders: readonly string[]) => {
    const { ledger, pending } = await ledgerEntriesOf(db, orders);
    return { ledger: countByKind(ledger), pending: countByKind(pending) };
  };
  const reserve = (order: string, lines: { product_id: string; qty: number }[]) => ({
    order_id: order,
    zone: 'MSK',
    lines,
    hold_seconds: 600,
  });

  it('30 orders of 1–3 lines, one hot product among them: 3 commands to reserve all, 4 to sell all', async () => {
    const [hot, ...others] = Array.from({ length: 4 }, (_, i) => oid(0x91, i + 1));
    await stock.restock(hot!, 'MSK', 100, 'delivery');
    for (const p of others) await stock.restock(p, 'MSK', 100, 'delivery');
    const orders = Array.from({ length: 30 }, (_, i) => oid(0x92, i + 1));
    const linesOf = (i: number) => [
      { product_id: hot!, qty: 1 },
      ...others.slice(0, i % 3).map((product_id) => ({ product_id, qty: 2 })),
    ];
    // oplog entries writing the hot document: alone, or inside a transaction's applyOps
    const hotWrites = async () => {
      const ns = `${db.databaseName}.stock`;
      const oplog = client.db('local').collection('oplog.rs');
      const alone = await oplog.countDocuments({ ns, 'o2._id': `${hot}:MSK` });
      const [inTxn] = await oplog
        .aggregate<{ n: number }>([
          { $match: { 'o.applyOps': { $elemMatch: { ns, 'o2._id': `${hot}:MSK` } } } },
          { $unwind: '$o.applyOps' },
          { $match: { 'o.applyOps.ns': ns, 'o.applyOps.o2._id': `${hot}:MSK` } },
          { $count: 'n' },
        ])
        .toArray();
      return alone + (inTxn?.n ?? 0);
    };
    const restocked = await hotWrites();
    const reserving = await counted(() => service.reserveMany(orders.map((o, i) => reserve(o, linesOf(i)))));
    expect(reserving).toEqual(COMMANDS[mode].reserve);
    // the hot product's 30 holds: one write of its document (oplog entries)
    expect((await hotWrites()) - restocked).toBe(1);
    for (const o of orders) {
      expect(await reservations.get(o)).toMatchObject({ status: 'reserved' });
      expect((await answers(o)).map((a) => a.type)).toEqual(['StockReserved']);
    }
    expect(await stock.findOne(hot!, 'MSK')).toMatchObject({ available: 70, reserved: 30, committed: 0 });
    // 60 lines (30 hot, 10 × 1 and 10 × 2 others): each entry written with its hold, pending in its document for the stock pass
    expect(await entries(orders)).toEqual({ ledger: {}, pending: { reserve: 60 } });

    const selling = await counted(() => service.commitMany(orders));
    expect(selling).toEqual(COMMANDS[mode].sell);
    expect((await hotWrites()) - restocked).toBe(2);
    for (const o of orders) {
      const doc = await reservations.get(o);
      expect(doc).toMatchObject({ status: 'committed' });
      expect(doc?.pending).toBeUndefined();
      expect((await answers(o)).map((a) => a.type)).toEqual(['StockReserved', 'StockCommitted']);
    }
    expect(await stock.findOne(hot!, 'MSK')).toMatchObject({ available: 70, reserved: 0, committed: 30 });
    expect(await entries(orders)).toEqual({ ledger: {}, pending: { reserve: 60, commit: 60 } });
    // 10 orders had one other line of 2, 10 had two
    expect(await stock.findOne(others[0]!, 'MSK')).toMatchObject({ available: 60, reserved: 0, committed: 40 });
    expect(await stock.findOne(others[1]!, 'MSK')).toMatchObject({ available: 80, reserved: 0, committed: 20 });
  });

  it('a batch where some lines lose their guard: the short orders are rejected and hold nothing, the others are reserved', async () => {
    const [scarce, plenty] = [oid(0x93, 1), oid(0x93, 2)];
    await stock.restock(scarce, 'MSK', 3, 'delivery');
    await stock.restock(plenty, 'MSK', 100, 'delivery');
    const orders = Array.from({ length: 6 }, (_, i) => oid(0x94, i + 1));
    // each wants 1 of `scarce` (3 in stock) and 1 of `plenty`: three win, three are short
    await service.reserveMany(orders.map((o) => reserve(o, [{ product_id: scarce, qty: 1 }, { product_id: plenty, qty: 1 }])));
    const docs = await Promise.all(orders.map((o) => reservations.get(o)));
    const won = docs.filter((d) => d?.status === 'reserved');
    const lost = docs.filter((d) => d?.status === 'rejected');
    expect(won).toHaveLength(3);
    expect(lost).toHaveLength(3);
    for (const d of docs) expect(d?.pending).toBeUndefined();
    for (const d of lost) {
      const [answer, ...more] = await answers(d!._id);
      expect(more).toEqual([]);
      expect(answer).toMatchObject({ type: 'StockRejected', payload: { code: 'INVENTORY.INSUFFICIENT_STOCK' } });
    }
    // the losers' `plenty` holds went back: only the winners hold anything
    expect(await stock.findOne(scarce, 'MSK')).toMatchObject({ available: 0, reserved: 3 });
    expect(await stock.findOne(plenty, 'MSK')).toMatchObject({ available: 97, reserved: 3 });
    const holders = (await stock.findOne(plenty, 'MSK'))!.reservations.map((h) => h.order_id).sort();
    expect(holders).toEqual(won.map((d) => d!._id).sort());
  });

  it('a duplicate inside one batch and a redelivery of an answered order: one answer each, nothing held twice', async () => {
    const p = oid(0x95, 1);
    await stock.restock(p, 'MSK', 10, 'delivery');
    const [old, twice, fresh] = [oid(0x96, 1), oid(0x96, 2), oid(0x96, 3)];
    await service.reserve(reserve(old, [{ product_id: p, qty: 1 }]));
    await service.reserveMany([
      reserve(old, [{ product_id: p, qty: 1 }]),
      reserve(twice, [{ product_id: p, qty: 2 }]),
      reserve(fresh, [{ product_id: p, qty: 1 }]),
      reserve(twice, [{ product_id: p, qty: 2 }]),
    ]);
    for (const o of [old, twice, fresh]) expect((await answers(o)).map((a) => a.type)).toEqual(['StockReserved']);
    expect(await stock.findOne(p, 'MSK')).toMatchObject({ available: 6, reserved: 4 });

    // CommitStock: a sold order, a duplicate inside the batch, and an order whose hold expired
    const expired = oid(0x96, 4);
    await service.reserve(reserve(expired, [{ product_id: p, qty: 1 }]));
    await reservations.coll.updateOne({ _id: expired }, { $set: { expires_at: new Date(Date.now() - 1000) } });
    await service.commit(old);
    await service.commitMany([old, twice, fresh, twice, expired]);
    expect((await answers(old)).map((a) => a.type)).toEqual(['StockReserved', 'StockCommitted']);
    for (const o of [twice, fresh]) expect((await answers(o)).map((a) => a.type)).toEqual(['StockReserved', 'StockCommitted']);
    expect((await answers(expired)).map((a) => a.type)).toEqual(['StockReserved', 'StockReleased', 'StockCommitFailed']);
    expect(await stock.findOne(p, 'MSK')).toMatchObject({ available: 6, reserved: 0, committed: 4 });
  });

  it.each([
    { n: 1, how: 'released by a stale processor (its hold back, the order remembered as released)', mark: true },
    { n: 2, how: 'missing from the document with no memory of it', mark: false },
  ])('a sale batch on a shared document where one order’s hold is $how: the others are sold there, that one is not', async ({ n, mark }) => {
    const p = oid(0x97, n);
    await stock.restock(p, 'MSK', 10, 'delivery');
    const [gone, kept, other] = [oid(0x98, 3 * n + 1), oid(0x98, 3 * n + 2), oid(0x98, 3 * n + 3)];
    await service.reserveMany([gone, kept, other].map((o) => reserve(o, [{ product_id: p, qty: 2 }])));
    // the reservation still says reserved: the document-wide sale must not match, nor count its units
    await stock.coll.updateOne(
      { _id: `${p}:MSK` },
      { $pull: { reservations: { order_id: gone } }, $inc: { available: 2, reserved: -2 }, ...(mark ? { $push: { settled: { order_id: gone, as: 'released' as const, at: new Date() } } } : {}) },
    );
    await service.commitMany([gone, kept, other]);
    expect(await stock.findOne(p, 'MSK')).toMatchObject({ available: 6, reserved: 0, committed: 4 });
    const settled = ((await stock.findOne(p, 'MSK'))?.settled ?? []).map((m) => [m.order_id, m.as]);
    expect(settled).toEqual(expect.arrayContaining([[kept, 'committed'], [other, 'committed']]));
    // `gone` is remembered once: as released, or (no hold to sell) as settled by the sale with nothing sold
    expect(settled.filter(([o]) => o === gone)).toEqual([[gone, mark ? 'released' : 'committed']]);
  });
});
