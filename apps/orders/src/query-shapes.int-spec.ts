import { MemberProfiler, profileMembers, uniqueName, unindexedShapes, waitFor } from '@mw/testing';
import { shardingOf, unknownCollections, unroutedQueries } from '@mw/persistence';
import { bearer, OrdersHarness } from './test/harness';

const declined = uniqueName('declined');

/**
 * Every query shape orders sends, proven by mongod (the members' own profilers) while the real
 * paths run: checkout, saga replies, payment worker, deadline sweeper, outbox relay, the HTTP reads.
 * No shape scans, sorts in memory or examines more than it returns. Seed 001 §5: order status (a
 * decision) is read from the primary, a user's history from a secondary.
 */
describe('orders query shapes and read routing on mongod', () => {
  const h = new OrdersHarness({ ORDER_HISTORY_READ_PREFERENCE: 'secondaryPreferred', PAYMENT_SIM_DECLINE_USERS: declined, SAGA_STOCK_TIMEOUT_MS: '1500' });
  let profiler: MemberProfiler;

  beforeAll(async () => {
    profiler = await profileMembers(h.config.MONGO_URL, h.config.MONGO_DB);
    await h.start(1);
  }, 120_000);
  afterAll(async () => {
    await profiler?.stop();
    await h.stop();
  });

  it('every unique index of a collection sharded in ADR 0010 starts with its shard key (mongos refuses any other)', async () => {
    const problems: string[] = [];
    for (const name of ['orders', 'checkout_rejections']) {
      const key = shardingOf('orders', name)?.key;
      if (!key) continue;
      const fields = Object.keys(key);
      for (const ix of await h.db.collection(name).listIndexes().toArray()) {
        if (!ix['unique'] || ix['name'] === '_id_') continue;
        const prefix = Object.keys(ix['key'] as Record<string, unknown>).slice(0, fields.length);
        if (prefix.join() !== fields.join()) problems.push(`${name}.${String(ix['name'])}: ${prefix.join()} ≠ ${fields.join()}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('indexes every shape; status from the primary, history from secondaries', async () => {
    const user = uniqueName('u');
    const ok = h.checkout({ user_id: user });
    const no = h.checkout({ user_id: declined });
    const late = h.checkout({ user_id: user });
    for (const c of [ok, no, late]) await h.sendCheckout(c);
    await h.reserved(ok);
    await h.reserved(no);
    await h.waitSeen(ok.order_id, 'CommitStock');
    await h.reply('StockCommitted', { order_id: ok.order_id });
    await h.waitState(ok.order_id, 'CONFIRMED');
    await h.waitState(no.order_id, 'CANCELLED');
    await h.waitState(late.order_id, 'CANCELLED'); // the stock deadline passed: the sweeper cancelled it
    await h.waitSeen(late.order_id, 'OrderCancelled');

    // support lists the user's history (a customer would list their own: orders.int-spec)
    const asSupport = await bearer('sue');
    const history = async (cursor?: string) =>
      (await h.call<{ items: { id: string }[]; next_cursor: string | null }>(`/orders?user_id=${user}&limit=1${cursor ? `&cursor=${cursor}` : ''}`, asSupport)).body;
    const first = await waitFor(async () => {
      const page = await history();
      return page.next_cursor ? page : undefined; // both orders have reached the secondary
    }, 10_000, 'history on a secondary');
    expect((await history(first.next_cursor!)).next_cursor).toBeNull();

    const ops = await profiler.operations();
    expect(unindexedShapes(ops)).toEqual([]);
    // ADR 0010: on the sharded overlay every query carries its collection's shard key or is a documented scatter
    expect(unknownCollections('orders', ops)).toEqual([]);
    expect(unroutedQueries('orders', ops)).toEqual([]);
    const orderReads = ops.filter((o) => o.collection === 'orders' && o.op === 'query');
    const historyReads = orderReads.filter((o) => o.shape.includes('user_id'));
    expect(historyReads.length).toBeGreaterThanOrEqual(2);
    expect(historyReads.filter((o) => o.member === profiler.primary)).toEqual([]);
    // every other read (GET /orders/{id}, the saga's loads, the sweeper, the relay) is the primary's
    expect(ops.filter((o) => !historyReads.includes(o) && o.member !== profiler.primary).map((o) => `${o.collection} ${o.op} ${o.shape}`)).toEqual([]);
    expect(new Set(ops.map((o) => `${o.collection} ${o.op} ${o.shape}`)).size).toBeGreaterThanOrEqual(8);
  });
});
