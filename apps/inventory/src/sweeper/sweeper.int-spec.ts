import { createMongoClient } from '@mw/persistence';
import pino from 'pino';
import { testEnv, uniqueName } from '@mw/testing';
import { LedgerRepository } from '../ledger/ledger.repository';
import { LedgerService } from '../ledger/ledger.service';
import { InventoryEvents } from '../outbox/inventory-events';
import { OutboxNudge } from '../outbox/outbox.service';
import { newReservation, ReservationDoc } from '../reservations/reservation';
import { ReservationsRepository } from '../reservations/reservations.repository';
import { ReservationsService } from '../reservations/reservations.service';
import { StockRepository } from '../stock/stock.repository';
import { oid } from '../test/harness';
import { Sweeper } from './sweeper';

/** Crash recovery and concurrent sweeping against the real MongoDB server (no Kafka needed: answers stay in the outbox). */
describe('sweeper', () => {
  const env = testEnv();
  const client = createMongoClient(env.mongoUrl);
  const db = client.db(uniqueName('inventory_sweeper'));
  const logger = pino({ level: 'silent' });
  const stock = new StockRepository(db);
  const reservations = new ReservationsRepository(db);
  const ledger = new LedgerRepository(db);
  const service = new ReservationsService(reservations, stock, new InventoryEvents('test.events'), new OutboxNudge(), { zones: ['MSK'], maxLines: 10, maxQtyPerLine: 100 }, logger);
  const sweepers = [0, 1, 2].map(() => new Sweeper(reservations, stock, service, 0, logger));
  const p = oid(0xf1, 1);

  beforeAll(async () => {
    await client.connect();
    await stock.ensureIndexes();
    await reservations.ensureIndexes();
    await ledger.ensureIndexes();
    await stock.restock(p, 'MSK', 100, 'delivery');
  });
  afterAll(async () => {
    await db.dropDatabase();
    await client.close();
  });

  const level = async () => (await stock.findOne(p, 'MSK'))!;
  const outboxTypes = async (id: string) => ((await reservations.coll.findOne({ _id: id }))?._outbox ?? []).map((e) => (JSON.parse(e.envelope) as { type: string }).type);

  it('expires reservations exactly once while three sweepers run at the same time', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => oid(0xf2, i));
    for (const id of ids) await service.reserve({ order_id: id, zone: 'MSK', lines: [{ product_id: p, qty: 2 }], hold_seconds: 1 });
    expect(await level()).toMatchObject({ available: 40, reserved: 60 });
    const later = new Date(Date.now() + 2000);
    await Promise.all(sweepers.map((s) => s.sweepOnce(later)));
    expect(await level()).toMatchObject({ available: 100, reserved: 0, reservations: [] });
    for (const id of ids) expect(await outboxTypes(id)).toEqual(['StockReserved', 'StockReleased']);
    await ledger.flushOnce();
    expect((await ledger.coll.countDocuments({ kind: 'expire' }))).toBe(30);
  });

  it('finishes an order whose processor crashed half-way through reserving', async () => {
    const id = oid(0xf3, 1);
    const p2 = oid(0xf1, 2);
    await stock.restock(p2, 'MSK', 5, 'delivery');
    // Crash after the claim and the first hold: status `reserving`, one line held.
    const doc = newReservation({ order_id: id, zone: 'MSK', lines: [{ product_id: p, qty: 1 }, { product_id: p2, qty: 1 }] }, new Date(Date.now() + 600_000), new Date(Date.now() - 60_000));
    await reservations.claim(doc);
    expect(await stock.hold('MSK', doc.lines[0]!, id, doc.expires_at)).toEqual({ held: true });
    await Promise.all(sweepers.map((s) => s.sweepOnce()));
    expect((await reservations.get(id))?.status).toBe('reserved');
    expect(await outboxTypes(id)).toEqual(['StockReserved']);
    expect((await stock.findOne(p2, 'MSK'))?.reserved).toBe(1);
    expect((await level()).reservations.filter((h) => h.order_id === id)).toHaveLength(1);
  });

  it('returns the holds of an order that crashed after its status changed (pending undo) and orphan holds', async () => {
    const id = oid(0xf3, 2);
    await service.reserve({ order_id: id, zone: 'MSK', lines: [{ product_id: p, qty: 3 }], hold_seconds: 600 });
    const before = (await level()).available;
    // Crash between "status → released" and returning the holds.
    await reservations.coll.updateOne({ _id: id }, { $set: { status: 'released', pending: 'undo', updated_at: new Date(0) } });
    // An orphan: a hold whose order document says it is closed, already past its expiry.
    const orphan = oid(0xf3, 3);
    await reservations.coll.insertOne({ ...newReservation({ order_id: orphan, zone: 'MSK', lines: [{ product_id: p, qty: 4 }] }, new Date(0), new Date(0)), status: 'expired' } as ReservationDoc);
    expect(await stock.hold('MSK', { product_id: p, qty: 4 }, orphan, new Date(Date.now() - 1000))).toEqual({ held: true });
    await Promise.all(sweepers.map((s) => s.sweepOnce()));
    expect((await level()).available).toBe(before + 3);
    expect((await level()).reservations.map((h) => h.order_id)).not.toContain(orphan);
    expect((await reservations.get(id))?.pending).toBeUndefined();
  });

  it('undoes the lines already held when a later line turns out short (stock taken after the pre-check)', async () => {
    const id = oid(0xf3, 4);
    const p3 = oid(0xf1, 3);
    await stock.restock(p3, 'MSK', 5, 'delivery');
    const before = (await level()).available;
    const doc = newReservation({ order_id: id, zone: 'MSK', lines: [{ product_id: p, qty: 2 }, { product_id: p3, qty: 6 }] }, new Date(Date.now() + 600_000), new Date());
    await reservations.claim(doc);
    await service.complete(doc, true);
    expect(await reservations.get(id)).toMatchObject({ status: 'rejected', rejection: { code: 'INVENTORY.INSUFFICIENT_STOCK', shortages: [{ product_id: p3, requested: 6, available: 5 }] } });
    expect((await reservations.get(id))?.pending).toBeUndefined();
    expect(await level()).toMatchObject({ available: before });
    expect((await level()).reservations.map((h) => h.order_id)).not.toContain(id);
    expect(await outboxTypes(id)).toEqual(['StockRejected']);
  });

  it('keeps the ledger invariant through all of it, with entries still pending or already flushed', async () => {
    const svc = new LedgerService(db, ledger, reservations);
    expect(await svc.check({})).toMatchObject({ ok: true, failures: [] });
    await ledger.flushOnce();
    await ledger.flushOnce();
    expect(await svc.check({})).toMatchObject({ ok: true, failures: [] });
  });
});
