import { waitFor } from '@mw/testing';
import { InventoryHarness, oid } from '../test/harness';
import { StockDoc } from '../stock/stock';

/**
 * The proof that inventory never oversells: two real instances in one consumer group on real Kafka
 * and the project's MongoDB server, a burst of concurrent commands for one hot product.
 */
describe('never oversells (two instances, one consumer group)', () => {
  // Background loops at production-like periods: the MongoDB-compatible server is shared by both instances.
  const h = new InventoryHarness({ INVENTORY_PUMP_INTERVAL_MS: '500', INVENTORY_SWEEP_INTERVAL_MS: '1000', OUTBOX_POLL_MS: '200' });
  const hot = oid(0xa1, 1);
  let minAvailable = Number.POSITIVE_INFINITY;
  let sampler: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    await h.start(2);
    const res = await h.http('POST', `/stock/${hot}/MSK/restock`, { qty: 50, reason: 'initial delivery' });
    expect(res.status).toBe(201);
    sampler = setInterval(() => {
      void h.db
        .collection<StockDoc>('stock')
        .find({}, { projection: { available: 1 } })
        .toArray()
        .then((docs) => docs.forEach((d) => (minAvailable = Math.min(minAvailable, d.available))));
    }, 25);
  }, 180_000);

  afterAll(async () => {
    clearInterval(sampler);
    await h.stop();
  });

  it('reserves exactly the stock there is, answers each order once and keeps the ledger invariant', async () => {
    const orders = Array.from({ length: Number(process.env['INVENTORY_TEST_ORDERS'] ?? 420) }, (_, i) => ({ id: oid(0xb1, i), qty: 1 + (i % 2) }));
    const released = new Set(orders.filter((_, i) => i % 9 === 0).map((o) => o.id));
    const duplicated = orders.filter((_, i) => i % 5 === 0);
    const unknownReleases = Array.from({ length: 10 }, (_, i) => oid(0xb2, i));
    const reserve = (o: { id: string; qty: number }) => ({
      type: 'ReserveStock' as const,
      payload: { order_id: o.id, zone: 'MSK', lines: [{ product_id: hot, qty: o.qty }], hold_seconds: 600 },
    });
    // Interleave: each order's reserve, sometimes its duplicate, sometimes its release (same key → same partition, in order).
    const commandsOf = (o: { id: string; qty: number }, i: number) => [
      reserve(o),
      ...(duplicated.includes(o) ? [reserve(o)] : []),
      ...(released.has(o.id) ? [{ type: 'ReleaseStock' as const, payload: { order_id: o.id } }] : []),
      ...(i < unknownReleases.length ? [{ type: 'ReleaseStock' as const, payload: { order_id: unknownReleases[i]! } }] : []),
    ];
    const commands = orders.flatMap(commandsOf);
    expect(commands.filter((c) => c.type === 'ReserveStock').length).toBeGreaterThanOrEqual(orders.length >= 420 ? 500 : 0);
    const started = Date.now();
    // Two concurrent producers, each owning half of the orders, so per-order order holds.
    await Promise.all([0, 1].map((half) => h.send(orders.flatMap((o, i) => (i % 2 === half ? commandsOf(o, i) : [])))));

    const progress = setInterval(() => {
      void h.db.collection('reservations').aggregate<{ _id: string; n: number }>([{ $group: { _id: '$status', n: { $sum: 1 } } }]).toArray()
        .then((s) => console.log(`progress ${Date.now() - started} ms: ${h.events.length} events, statuses ${JSON.stringify(s)}`));
    }, 10_000);
    const reserveAnswers = () => h.events.filter((e) => e.type === 'StockReserved' || e.type === 'StockRejected');
    await waitFor(async () => new Set(reserveAnswers().map((e) => e.payload['order_id'])).size === orders.length, 240_000, 'an answer for every order');
    const reservedIds = new Set(h.events.filter((e) => e.type === 'StockReserved').map((e) => e.payload['order_id'] as string));
    const expectReleased = [...released].filter((id) => reservedIds.has(id));
    await waitFor(async () => expectReleased.every((id) => h.eventsFor(id, 'StockReleased').length > 0), 60_000, 'releases answered');
    await waitFor(async () => unknownReleases.every((id) => h.eventsFor(id, 'StockReleased').length > 0), 60_000, 'unknown releases answered');
    // Let the relay drain anything that could still arrive (a second answer would show up here).
    await waitFor(async () => (await h.db.collection('reservations').countDocuments({ '_outbox.created_at': { $lte: new Date() } })) === 0, 30_000, 'outbox drained');
    await new Promise((r) => setTimeout(r, 1000));
    clearInterval(progress);
    console.log(`never-oversells: ${commands.length} commands answered in ${Date.now() - started} ms`);

    // Every order answered exactly once (no duplicate answer for duplicate commands).
    for (const o of orders) expect(h.eventsFor(o.id).filter((e) => e.type === 'StockReserved' || e.type === 'StockRejected')).toHaveLength(1);
    for (const id of expectReleased) expect(h.eventsFor(id, 'StockReleased')).toHaveLength(1);
    for (const id of unknownReleases) expect(h.eventsFor(id, 'StockReleased')).toHaveLength(1);
    for (const e of h.events.filter((x) => x.type === 'StockRejected')) expect(e.payload['code']).toBe('INVENTORY.INSUFFICIENT_STOCK');

    // Exactly the right units: what the answers say is held is what the document holds, and no more than 50.
    const stillHeld = orders.filter((o) => reservedIds.has(o.id) && !released.has(o.id));
    const heldUnits = stillHeld.reduce((n, o) => n + o.qty, 0);
    const doc = await h.db.collection<StockDoc>('stock').findOne({ product_id: hot, zone: 'MSK' });
    expect(doc).toMatchObject({ reserved: heldUnits, available: 50 - heldUnits, committed: 0 });
    expect(doc!.reservations.map((r) => r.order_id).sort()).toEqual(stillHeld.map((o) => o.id).sort());
    expect(heldUnits).toBeLessThanOrEqual(50);
    // Demand (≈630 units) far exceeds supply: units are left only if released after the last order that could use them.
    expect(heldUnits).toBeGreaterThan(40);
    expect(minAvailable).toBeGreaterThanOrEqual(0);
    expect(doc!.available).toBeGreaterThanOrEqual(0);

    // The reservation documents agree with the answers.
    const statuses = await h.db.collection('reservations').aggregate<{ _id: string; n: number }>([{ $group: { _id: '$status', n: { $sum: 1 } } }]).toArray();
    const byStatus = Object.fromEntries(statuses.map((s) => [s._id, s.n]));
    expect(byStatus['reserved']).toBe(stillHeld.length);

    const check = await h.http('GET', `/ledger/check?product_id=${hot}&zone=MSK`);
    expect(check.body).toMatchObject({ ok: true, checked: 1, failures: [] });
  }, 330_000);

  it('returns expired holds to stock while orders keep arriving, and commits only live reservations', async () => {
    const p = oid(0xa1, 2);
    await h.http('POST', `/stock/${p}/MSK/restock`, { qty: 30, reason: 'delivery' });
    const orders = Array.from({ length: 120 }, (_, i) => ({ id: oid(0xc1, i), qty: 1 + (i % 3) }));
    const waves = [orders.slice(0, 40), orders.slice(40, 80), orders.slice(80)];
    const reserve = (o: { id: string; qty: number }) => ({
      type: 'ReserveStock' as const,
      payload: { order_id: o.id, zone: 'MSK', lines: [{ product_id: p, qty: o.qty }], hold_seconds: 1 },
    });
    for (const wave of waves) {
      await h.send(wave.map(reserve));
      // Commit every fourth order of the wave straight away (some win, some are already expired).
      await h.send(wave.filter((_, i) => i % 4 === 0).map((o) => ({ type: 'CommitStock' as const, payload: { order_id: o.id } })));
      await new Promise((r) => setTimeout(r, 1500));
    }
    await waitFor(async () => new Set(h.events.filter((e) => ['StockReserved', 'StockRejected'].includes(e.type) && orders.some((o) => o.id === e.payload['order_id'])).map((e) => e.payload['order_id'])).size === orders.length, 200_000, 'every order answered');
    const reservedIds = new Set(h.events.filter((e) => e.type === 'StockReserved').map((e) => e.payload['order_id'] as string));
    // Every reserved order ends committed or expired; nothing stays held.
    await waitFor(async () => {
      const d = await h.db.collection<StockDoc>('stock').findOne({ product_id: p, zone: 'MSK' });
      return d?.reserved === 0 && d.reservations.length === 0;
    }, 60_000, 'all holds expired or committed');
    await waitFor(async () => orders.filter((o) => reservedIds.has(o.id)).every((o) => h.eventsFor(o.id, 'StockCommitted').length + h.eventsFor(o.id, 'StockReleased').length === 1), 30_000, 'each reservation closed once');
    await new Promise((r) => setTimeout(r, 1000)); // a second closing answer would arrive here
    const committedOrders = orders.filter((o) => h.eventsFor(o.id, 'StockCommitted').length > 0);
    for (const o of orders.filter((x) => reservedIds.has(x.id))) {
      const closing = [...h.eventsFor(o.id, 'StockCommitted'), ...h.eventsFor(o.id, 'StockReleased')];
      expect(closing).toHaveLength(1);
      if (closing[0]!.type === 'StockReleased') expect(closing[0]!.payload['reason']).toBe('expired');
    }
    // Commits that came too late got an error event with a code, never a silent success.
    for (const e of h.events.filter((x) => x.type === 'StockCommitFailed' && orders.some((o) => o.id === x.payload['order_id']))) {
      expect(['INVENTORY.RESERVATION_EXPIRED', 'INVENTORY.RESERVATION_NOT_FOUND']).toContain(e.payload['code']);
    }
    const expiredCount = orders.filter((o) => h.eventsFor(o.id, 'StockReleased').length > 0).length;
    expect(expiredCount).toBeGreaterThan(0);
    expect(reservedIds.size).toBeGreaterThan(30 / 3); // expiry returned stock and later waves reserved it again
    const committedUnits = committedOrders.reduce((n, o) => n + o.qty, 0);
    const doc = await h.db.collection<StockDoc>('stock').findOne({ product_id: p, zone: 'MSK' });
    expect(doc).toMatchObject({ committed: committedUnits, reserved: 0, available: 30 - committedUnits });
    expect(minAvailable).toBeGreaterThanOrEqual(0);
    const check = await h.http('GET', `/ledger/check?product_id=${p}&zone=MSK`);
    expect(check.body).toMatchObject({ ok: true, failures: [] });
  }, 330_000);
});
