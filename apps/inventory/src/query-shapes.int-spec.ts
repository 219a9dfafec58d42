import { unknownCollections, unroutedQueries } from '@mw/persistence';
import { MemberProfiler, profileMembers, unindexedShapes, waitFor } from '@mw/testing';
import { InventoryHarness, oid, restockKey } from './test/harness';

/**
 * Every query shape inventory sends, proven by mongod itself: the service runs its real paths
 * (restock, reserve, release, commit, return, expiry sweep, ledger flush, level publishing, the HTTP
 * reads) while every member's profiler records what it planned. No shape may scan the collection,
 * sort in memory, or examine more documents than it returns. Every read is a decision read here,
 * so the secondaries must have served none.
 */
describe('inventory query shapes on mongod', () => {
  const h = new InventoryHarness({ INVENTORY_SWEEP_INTERVAL_MS: '200' });
  let profiler: MemberProfiler;
  const products = [1, 2, 3].map((i) => oid(0xe5, i));

  beforeAll(async () => {
    profiler = await profileMembers(h.config.MONGO_URL, h.config.MONGO_DB);
    await h.start(1);
  }, 180_000);
  afterAll(async () => {
    await profiler?.stop();
    await h.stop();
  });

  it('uses an index for every shape and reads decisions from the primary', async () => {
    for (const p of products)
      for (const zone of ['MSK', 'SPB'])
        expect(
          (
            await h.http('POST', `/stock/${p}/${zone}/restock`, {
              as: 'stan',
              headers: restockKey(),
              body: { qty: 20, reason: 'delivery' },
            })
          ).status,
        ).toBe(201);
    const orders = [1, 2, 3, 4].map((i) => oid(0xe6, i));
    const lines = [
      { product_id: products[0]!, qty: 2 },
      { product_id: products[1]!, qty: 1 },
    ];
    await h.send(
      orders.map((order_id, i) => ({
        type: 'ReserveStock',
        payload: { order_id, zone: 'MSK', lines, hold_seconds: i === 3 ? 1 : 600 },
      })),
    );
    await waitFor(
      async () => orders.every((o) => h.eventsFor(o, 'StockReserved').length === 1),
      30_000,
      'four reservations',
    );
    await h.send([
      { type: 'ReleaseStock', payload: { order_id: orders[0]! } },
      { type: 'CommitStock', payload: { order_id: orders[1]! } },
      {
        type: 'ReserveStock',
        payload: {
          order_id: oid(0xe6, 9),
          zone: 'MSK',
          lines: [{ product_id: products[2]!, qty: 500 }],
          hold_seconds: 60,
        },
      },
    ]);
    await waitFor(
      async () =>
        h.eventsFor(orders[0]!, 'StockReleased').length === 1 &&
        h.eventsFor(orders[1]!, 'StockCommitted').length === 1,
      30_000,
      'release and commit',
    );
    await h.send([
      { type: 'ReturnStock', payload: { order_id: orders[1]!, reason: 'cancelled_by_customer' } },
      { type: 'ReturnStock', payload: { order_id: orders[2]!, reason: 'cancelled_by_customer' } },
    ]);
    await waitFor(
      async () =>
        h.eventsFor(orders[1]!, 'StockReturned').length === 1 &&
        h.eventsFor(orders[2]!, 'StockReturnFailed').length === 1,
      30_000,
      'a return and a refused one',
    );
    await waitFor(
      async () => h.eventsFor(orders[3]!, 'StockReleased').length === 1,
      30_000,
      'the 1 s hold expired by the sweeper',
    );
    await waitFor(
      async () => h.events.some((e) => e.type === 'StockLevelChanged'),
      30_000,
      'levels published',
    );
    expect((await h.http('GET', `/stock/${products[0]}`)).status).toBe(200);
    expect((await h.http('GET', '/low-stock?zone=MSK&threshold=19', { as: 'stan' })).status).toBe(200);
    expect((await h.http('GET', `/availability?zone=SPB&product_ids=${products.join(',')}`)).status).toBe(200);
    expect((await h.http('GET', `/reservations/${orders[1]}`, { as: 'sue' })).status).toBe(200);
    await waitFor(
      async () =>
        ((await h.http('GET', `/ledger/${products[0]}/MSK`, { as: 'stan' })).body as unknown as unknown[])
          .length >= 4,
      10_000,
      'ledger flushed',
    );
    expect(
      (await h.http('GET', `/ledger/check?product_id=${products[0]}`, { as: 'service' })).body,
    ).toMatchObject({ ok: true });

    const ops = await profiler.operations();
    const shapes = new Set(ops.map((o) => `${o.collection} ${o.op} ${o.shape}`));
    expect(shapes.size).toBeGreaterThanOrEqual(12); // the paths above really ran
    // The ledger check's sales reads (committed reservations per product/zone) ran and are among them.
    const sales = ops.filter(
      (o) =>
        o.collection === 'reservations' &&
        o.planSummary.includes('IXSCAN { lines.product_id: 1, zone: 1, pending: 1 }'),
    );
    expect(new Set(sales.map((o) => o.op))).toEqual(new Set(['aggregate', 'query']));
    // … and so did its read of returns still being applied.
    expect(
      ops.some(
        (o) =>
          o.collection === 'reservations' &&
          o.op === 'query' &&
          o.planSummary.includes('IXSCAN { pending: 1, lines.product_id: 1, zone: 1 }'),
      ),
    ).toBe(true);
    expect(unindexedShapes(ops)).toEqual([]);
    // ADR 0010: on the sharded overlay every query carries its collection's shard key or is a documented scatter
    expect(unknownCollections('inventory', ops)).toEqual([]);
    expect(unroutedQueries('inventory', ops)).toEqual([]);
    expect(
      ops
        .filter((o) => o.member !== profiler.primary)
        .map((o) => `${o.member} ${o.collection} ${o.op} ${o.shape}`),
    ).toEqual([]);
  });
});
