import { join } from 'node:path';
import pino from 'pino';
import { PausingChild, waitFor } from '@mw/testing';
import { LedgerRepository } from '../ledger/ledger.repository';
import { LedgerService } from '../ledger/ledger.service';
import { InventoryEvents } from '../outbox/inventory-events';
import { OutboxNudge } from '../outbox/outbox.service';
import { StockRepository } from '../stock/stock.repository';
import { InventoryHarness, oid } from '../test/harness';
import { ReservationDoc } from './reservation';
import { ReservationsRepository } from './reservations.repository';
import { ReservationsService } from './reservations.service';

/**
 * A return killed half-way: the inventory code runs in a child process that is SIGKILLed (1) right
 * after the order became `returned` with its pending work and answer, before any stock document
 * moved, and (2) after the first line moved on its document, before the order recorded it. The
 * real service then starts on the same database (the restart): its sweeper finishes both returns,
 * each unit exactly once, and the redelivered ReturnStock is answered again without moving anything.
 */
describe('a return killed by SIGKILL completes exactly once after the restart', () => {
  const h = new InventoryHarness({ INVENTORY_STALE_AFTER_MS: '1500' });
  const [p1, p2] = [oid(0xc1, 1), oid(0xc1, 2)];
  const [a, b, kept] = [oid(0xc2, 1), oid(0xc2, 2), oid(0xc2, 3)];
  let child: PausingChild | undefined;

  beforeAll(() => h.mongo.connect());
  afterAll(async () => {
    await child?.kill();
    await h.stop();
  });

  const counters = (p: string) => h.counters(p);
  const order = (id: string) => h.db.collection<ReservationDoc>('reservations').findOne({ _id: id });
  const killAt = async (orderId: string, point: 'after-status' | 'after-apply') => {
    child = new PausingChild(join(__dirname, '../test/return-child.ts'), [
      h.config.MONGO_URL,
      h.config.MONGO_DB,
      h.config.INVENTORY_EVENTS_TOPIC,
      orderId,
      point,
    ]);
    await child.pausedAt(`${point} ${orderId}`);
    await child.kill();
  };

  it('finishes both returns once: counters, ledger movements, answers, no mark left', async () => {
    // Before the crash: two sold orders, through the service's own code on the test database.
    const reservations = new ReservationsRepository(h.db);
    const stock = new StockRepository(h.db);
    const ledger = new LedgerRepository(h.db);
    for (const r of [reservations, stock, ledger]) await r.ensureIndexes();
    const service = new ReservationsService(
      reservations,
      stock,
      new InventoryEvents(h.config.INVENTORY_EVENTS_TOPIC),
      new OutboxNudge(),
      { zones: ['MSK'], maxLines: 10, maxQtyPerLine: 100 },
      pino({ level: 'silent' }),
    );
    await stock.restock(p1, 'MSK', 10, 'delivery');
    await stock.restock(p2, 'MSK', 10, 'delivery');
    // `kept` stays sold: its units share the counter, so a unit returned twice would not stop at zero.
    for (const [id, lines] of [
      [a, [{ product_id: p1, qty: 2 }]],
      [
        b,
        [
          { product_id: p1, qty: 1 },
          { product_id: p2, qty: 3 },
        ],
      ],
      [kept, [{ product_id: p1, qty: 4 }]],
    ] as const) {
      await service.reserve({ order_id: id, zone: 'MSK', lines: [...lines], hold_seconds: 600 });
      await service.commit(id);
    }
    expect(await counters(p1)).toEqual({ available: 3, reserved: 0, committed: 7, marks: [] });

    await killAt(a, 'after-status');
    expect(await order(a)).toMatchObject({ status: 'returned', pending: 'return' });
    expect(await counters(p1)).toEqual({ available: 3, reserved: 0, committed: 7, marks: [] });

    await killAt(b, 'after-apply');
    expect(await order(b)).toMatchObject({ status: 'returned', pending: 'return' });
    expect((await order(b))?.returned_lines ?? []).toEqual([]);
    expect(await counters(p1)).toEqual({ available: 4, reserved: 0, committed: 6, marks: [b] });
    expect(await counters(p2)).toEqual({ available: 7, reserved: 0, committed: 3, marks: [] });
    // Even half-way the invariant holds: the returns not yet applied are accounted for.
    expect(await new LedgerService(h.db, ledger, reservations).check({})).toMatchObject({
      ok: true,
      checked: 2,
    });

    // The restart: the real service. Its sweeper alone finishes both returns (their pending work is stale).
    await h.start(1);
    await waitFor(
      async () => (await order(a))?.pending === undefined && (await order(b))?.pending === undefined,
      60_000,
      'both returns finished by the sweeper',
    );
    expect(await counters(p1)).toEqual({ available: 6, reserved: 0, committed: 4, marks: [] });
    expect(await counters(p2)).toEqual({ available: 10, reserved: 0, committed: 0, marks: [] });
    expect((await order(b))?.returned_lines?.sort()).toEqual([p1, p2]);
    // Then the ReturnStock the dead process never acknowledged is delivered again: answered, nothing moves.
    await h.send(
      [a, b].map((order_id) => ({
        type: 'ReturnStock' as const,
        payload: { order_id, reason: 'cancelled_by_customer' as const },
      })),
    );
    await waitFor(
      async () => h.eventsFor(a, 'StockReturned').length >= 2 && h.eventsFor(b, 'StockReturned').length >= 2,
      60_000,
      'both answered again',
    );
    expect(await counters(p1)).toEqual({ available: 6, reserved: 0, committed: 4, marks: [] });
    expect(await counters(p2)).toEqual({ available: 10, reserved: 0, committed: 0, marks: [] });

    // One `return` movement per (order, line), once the flusher moved them all.
    const coll = h.db.collection<{ kind: string; product_id: string; qty: number; order_id: string }>(
      'ledger',
    );
    await waitFor(
      async () => (await h.db.collection('stock').countDocuments({ '_ledger.0': { $exists: true } })) === 0,
      30_000,
      'ledger flushed',
    );
    const returns = (await coll.find({ kind: 'return' }).toArray()).map((m) => [
      m.order_id,
      m.product_id,
      m.qty,
    ]);
    expect(returns.sort()).toEqual(
      [
        [a, p1, 2],
        [b, p1, 1],
        [b, p2, 3],
      ].sort(),
    );
    expect((await h.http('GET', '/ledger/check', { as: 'otto' })).body).toMatchObject({
      ok: true,
      checked: 2,
    });

    // The answer stored with the status change (published by the restarted relay) and the one to the redelivery.
    await new Promise((r) => setTimeout(r, 1000));
    for (const id of [a, b]) {
      const answers = h.eventsFor(id, 'StockReturned');
      expect(new Set(answers.map((e) => e.id)).size).toBe(2);
      expect(answers.every((e) => e.payload['order_id'] === id && e.payload['zone'] === 'MSK')).toBe(true);
    }
    await waitFor(
      async () =>
        h.events.some(
          (e) =>
            e.type === 'StockLevelChanged' && e.payload['product_id'] === p1 && e.payload['available'] === 6,
        ),
      30_000,
      'the level after the returns',
    );
  }, 240_000);
});
