import { createMongoClient } from '@mw/persistence';
import { waitFor } from '@mw/testing';
import { InventoryHarness, oid, restockKey } from './test/harness';

/**
 * The replica set loses its primary while reservations flow: the primary mongod is SIGKILLed (the
 * infra supervisor starts it again and it rejoins as a secondary). The driver finds the new primary,
 * retryable writes and reads do their job, readiness goes not-ready and back, and every answer the
 * service gave (StockReserved on Kafka) is backed by the database afterwards.
 */
describe('inventory through a MongoDB election', () => {
  const h = new InventoryHarness();
  const product = oid(0xe7, 1);
  const orders = Array.from({ length: 240 }, (_, i) => oid(0xe8, i));

  beforeAll(async () => {
    await h.start(1);
    expect((await h.http('POST', `/stock/${product}/MSK/restock`, { as: 'stan', headers: restockKey(), body: { qty: 10_000, reason: 'delivery' } })).status).toBe(201);
  }, 180_000);
  afterAll(() => h.stop());

  it('keeps every acknowledged reservation when the primary is killed mid-stream', async () => {
    const admin = createMongoClient(h.config.MONGO_URL, { serverSelectionTimeoutMS: 30_000 });
    await admin.connect();
    // serverStatus and hello go to the primary (the default read preference of a command)
    const status = await admin.db('admin').command({ serverStatus: 1 });
    const hello = await admin.db('admin').command({ hello: 1 });
    const killed = { host: String(hello['me']), pid: Number(status['pid']) };
    expect(hello['isWritablePrimary']).toBe(true);

    const readiness: number[] = [];
    let probing = true;
    const probe = (async () => {
      while (probing) {
        readiness.push((await fetch(`${h.urls[0]}/health/ready`).catch(() => undefined))?.status ?? 0);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();

    const send = (from: number, to: number) =>
      h.send(orders.slice(from, to).map((order_id) => ({ type: 'ReserveStock' as const, payload: { order_id, zone: 'MSK', lines: [{ product_id: product, qty: 1 }], hold_seconds: 3600 } })));
    await send(0, 80);
    await waitFor(async () => h.events.filter((e) => e.type === 'StockReserved').length >= 40, 30_000, 'reservations flowing');
    process.kill(killed.pid, 'SIGKILL');
    await send(80, 160);
    await waitFor(async () => {
      const hello = await admin.db('admin').command({ hello: 1 });
      return hello['isWritablePrimary'] === true && hello['me'] !== killed.host;
    }, 60_000, 'a new primary elected');
    await send(160, 240);

    await waitFor(async () => orders.every((o) => h.eventsFor(o, 'StockReserved').length > 0 || h.eventsFor(o, 'StockRejected').length > 0), 120_000, 'every order answered');
    await waitFor(async () => readiness.at(-1) === 200, 30_000, 'ready again');
    probing = false;
    await probe;

    // every order was answered, and answered "reserved": no command was lost or dead-lettered
    expect(orders.filter((o) => h.eventsFor(o, 'StockReserved').length === 0)).toEqual([]);
    expect(readiness).toContain(503);
    expect(readiness.indexOf(200, readiness.indexOf(503))).toBeGreaterThan(readiness.indexOf(503));

    // what was acknowledged is in the database, read from the new primary
    const stock = await h.db.collection<{ _id: string; available: number; reserved: number; reservations: { order_id: string }[] }>('stock').findOne({ _id: `${product}:MSK` });
    expect(stock).toMatchObject({ available: 10_000 - orders.length, reserved: orders.length });
    expect(new Set(stock!.reservations.map((r) => r.order_id))).toEqual(new Set(orders));
    // The whole report on a failure: which counter disagrees with the ledger replay, by how much.
    const check = (await h.http('GET', `/ledger/check?product_id=${product}`, { as: 'service' })).body;
    expect(check).toEqual({ ok: true, checked: 1, failures: [] });

    // the killed member came back and caught up as a secondary
    await waitFor(async () => {
      const set = await admin.db('admin').command({ replSetGetStatus: 1 });
      return (set['members'] as { name: string; stateStr: string }[]).find((m) => m.name === killed.host)?.stateStr === 'SECONDARY';
    }, 90_000, `${killed.host} back as a secondary`);
    await admin.close();
  }, 300_000);
});
