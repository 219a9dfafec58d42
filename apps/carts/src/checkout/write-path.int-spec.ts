import type { Client } from 'cassandra-driver';
import { CASSANDRA } from '@mw/persistence';
import { DEMO_USERS, waitFor } from '@mw/testing';
import { CartsHarness, oid, type Who } from '../test/harness';

/** One statement carts sent to Cassandra: what it does and to which table (a batch counts each of its statements). */
type Op = `${'read' | 'write' | 'lwt'} ${string}`;

function opOf(query: string): Op {
  const q = query.replace(/\s+/g, ' ').trim();
  const table = /(?:FROM|INTO|UPDATE) (\w+)/i.exec(q)?.[1] ?? '?';
  if (/^SELECT/i.test(q)) return `read ${table}`;
  return / IF /i.test(q) ? `lwt ${table}` : `write ${table}`;
}

/**
 * The Cassandra statements of one checkout (ADR 0060, "The write path of a checkout"), counted on
 * the real driver as it talks to the real Cassandra: from POST /carts/{id}/checkout through the
 * order's OrderCreated and OrderConfirmed, for a two-line cart of a user whose activity day is
 * already open. A statement or a request added to this path fails the test.
 */
describe('carts statements per checkout (real Cassandra + Kafka)', () => {
  // The relays make one pass at start-up and none during the measurement.
  const h = new CartsHarness({ CHECKOUT_RELAY_INTERVAL_MS: '60000', MERGE_RELAY_INTERVAL_MS: '60000' });
  const phone = oid(0x6001);
  const charger = oid(0x6002);
  const ALICE = DEMO_USERS.alice.id;
  let alice: Who;

  beforeAll(async () => {
    await h.start();
    alice = await h.as('alice');
    await h.product(phone, 1, 1000_00);
    await h.product(charger, 1, 20_00);
    await h.drained('catalog.products.v1');
  });
  afterAll(() => h.stop());

  it('costs 9 writes (2 of them LWTs) and 3 reads in 10 requests, for a two-line cart: the intent, the status LWTs, the lookup move to ordered and one activity row per fact', async () => {
    const cart = await h.createCart('MSK', alice);
    await h.waitForPrice(cart, phone, '1000.00');
    await h.waitForPrice(cart, charger, '20.00');

    const db = h.app.get<Client>(CASSANDRA);
    const ops: Op[] = [];
    /** Each request carts sent (an execute or a batch), as the sorted ops it carried joined by ' + '. */
    const requests: string[] = [];
    const execute = jest.spyOn(db, 'execute');
    const batch = jest.spyOn(db, 'batch');
    try {
      const co = await h.http('POST', `/carts/${cart}/checkout`, undefined, alice);
      expect(co.status).toBe(202);
      const checkoutId = co.body['checkout_id'] as string;
      const ref = { order_id: oid(0x6f01), user_id: ALICE, cart_id: cart, checkout_id: checkoutId };
      await h.publish('orders.orders.v1', 'OrderCreated', {
        ...ref,
        zone: 'MSK',
        total: 1020_00,
        currency: 'RUB',
      });
      await h.publish('orders.orders.v1', 'OrderConfirmed', ref);
      await h.drained('orders.orders.v1');
      await waitFor(async () => h.checkoutsOf(cart).length === 1, 30_000, 'CheckoutRequested');
    } finally {
      for (const call of execute.mock.calls) {
        ops.push(opOf(String(call[0])));
        requests.push(opOf(String(call[0])));
      }
      for (const call of batch.mock.calls) {
        const carried = call[0].map((s) => opOf(typeof s === 'string' ? s : s.query));
        ops.push(...carried);
        requests.push(carried.sort().join(' + '));
      }
      execute.mockRestore();
      batch.mockRestore();
    }
    expect((await h.http('GET', `/carts/${cart}`, undefined, alice)).body['status']).toBe('ordered');
    // A relay pass (at most one per minute here) is not part of a checkout.
    const relayPass = (o: string) => o === 'read checkout_outbox' || o === 'read merge_intents';
    const path = ops.filter((o) => !relayPass(o));

    expect(path.sort()).toEqual(
      [
        // POST /checkout: read the cart and its products (one IN read), the intent, the LWT, drop the intent, CHECKOUT_REQUESTED
        'read carts',
        'read products',
        'write checkout_outbox',
        'lwt carts',
        'write checkout_outbox',
        'write user_events',
        // OrderCreated: ORDER_CREATED
        'write user_events',
        // OrderConfirmed: read the cart, the "ordered" lookup row, the LWT, drop the "active" row, ORDER_CONFIRMED
        'read carts',
        'write carts_by_user_status',
        'lwt carts',
        'write carts_by_user_status',
        'write user_events',
      ].sort(),
    );
    const writes = path.filter((o) => !o.startsWith('read'));
    expect({
      writes: writes.length,
      lwt: writes.filter((o) => o.startsWith('lwt')).length,
      reads: path.length - writes.length,
    }).toEqual({ writes: 9, lwt: 2, reads: 3 });

    // Requests: the writes that follow a step's last LWT share one unlogged batch (ADR 0060, issue #31).
    expect(requests.filter((r) => !relayPass(r)).sort()).toEqual(
      [
        // POST /checkout
        'read carts',
        'read products',
        'write checkout_outbox',
        'lwt carts',
        'write checkout_outbox + write user_events',
        // OrderCreated
        'write user_events',
        // OrderConfirmed
        'read carts',
        'write carts_by_user_status',
        'lwt carts',
        'write carts_by_user_status + write user_events',
      ].sort(),
    );
  });
});
