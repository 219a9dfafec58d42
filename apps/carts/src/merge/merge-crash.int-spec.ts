import { Client, types } from 'cassandra-driver';
import { waitFor } from '@mw/testing';
import { CartsChild } from '../test/child';
import { CartsHarness, oid, sleep, type Who } from '../test/harness';

/**
 * The guest-cart merge under SIGKILL (ADR 0060, sessions and merge): the carts service runs as a
 * child process and is killed after the intent (guest cart merging, user cart untouched), and after
 * the user cart took the lines (guest cart still merging). With nobody calling again, the merge
 * relay of the restarted process completes the merge; the lines arrive exactly once.
 */
describe('guest-cart merge survives SIGKILL (real carts process, Cassandra, Kafka, Keycloak)', () => {
  const h = new CartsHarness({
    MERGE_RELAY_MIN_AGE_MS: '500',
    MERGE_INTENT_GRACE_MS: '3000',
    MERGE_RELAY_INTERVAL_MS: '200',
  });
  const phone = oid(0x8001);
  let cql: Client;
  let child: CartsChild | undefined;

  const run = async (pause: 'none' | 'after-merge-intent' | 'after-merge-apply'): Promise<CartsChild> => {
    child = new CartsChild({ ...h.env, CARTS_TEST_PAUSE_AT: pause });
    await child.start();
    h.url = child.url;
    return child;
  };
  const cartRow = async (id: string) =>
    (
      await cql.execute(
        'SELECT status, merge, items, merged_from FROM carts WHERE cart_id = ?',
        [types.Uuid.fromString(id)],
        { prepare: true },
      )
    ).first();
  const qtyIn = async (id: string) =>
    ((await cartRow(id))?.get('items') as Record<string, { qty: number }> | null)?.[phone]?.qty ?? 0;
  const intents = async () =>
    (await cql.execute('SELECT guest_cart_id FROM merge_intents')).rows.map((r) =>
      String(r.get('guest_cart_id')),
    );

  beforeAll(async () => {
    await run('after-merge-intent');
    await h.connect();
    cql = new Client({
      contactPoints: [...h.config.CASSANDRA_CONTACT_POINTS],
      localDataCenter: h.config.CASSANDRA_LOCAL_DATACENTER,
      keyspace: h.config.CASSANDRA_KEYSPACE,
    });
    await cql.connect();
    await h.product(phone, 1, 1000_00);
    await h.drained('catalog.products.v1');
  });
  afterAll(async () => {
    await child?.kill();
    await h.stop();
    await cql?.shutdown();
  });

  it('a merge killed after its intent, then again after the user cart took the lines, completes once without any new call', async () => {
    const alice: Who = await h.as('alice');
    const mine = await h.createCart('MSK', alice);
    expect((await h.http('PUT', `/carts/${mine}/items/${phone}`, { qty: 1 }, alice)).status).toBe(200);
    const guest = await h.guest();
    const guestCart = await h.createCart('MSK', guest);
    expect((await h.http('PUT', `/carts/${guestCart}/items/${phone}`, { qty: 2 }, guest)).status).toBe(200);

    // Kill 1: the guest cart records the merge (merging → mine), the user cart is not written.
    void h.http('POST', '/carts/merge', undefined, { ...alice, ...guest }).catch(() => undefined);
    expect(await child!.pausedAt('after-merge-intent')).toBe(guestCart);
    await child!.kill();
    expect((await cartRow(guestCart))?.get('status')).toBe('merging');
    expect(JSON.parse((await cartRow(guestCart))?.get('merge') as string)).toMatchObject({
      into_cart_id: mine,
      merged_at: null,
    });
    expect(await qtyIn(mine)).toBe(1);
    expect(await intents()).toEqual([guestCart]);

    // Kill 2: restarted, the relay (not a client) picks the intent up and writes the user cart; killed before closing the guest cart.
    await run('after-merge-apply');
    expect(await child!.pausedAt('after-merge-apply')).toBe(guestCart);
    await child!.kill();
    expect(await qtyIn(mine)).toBe(3);
    expect((await cartRow(guestCart))?.get('status')).toBe('merging');

    // Restart: the relay finds the lines already in (the user cart records the guest cart) and only closes it.
    await run('none');
    await waitFor(
      async () => (await cartRow(guestCart))?.get('status') === 'merged',
      30_000,
      'guest cart merged by the relay',
    );
    await waitFor(async () => (await intents()).length === 0, 30_000, 'merge intents drained');
    await sleep(1000); // several relay passes: a double application would show
    expect(await qtyIn(mine)).toBe(3);
    expect(JSON.parse((await cartRow(mine))?.get('merged_from') as string)).toEqual([
      expect.objectContaining({ guest_cart_id: guestCart }),
    ]);

    // The client's retry answers the merge that happened, and adds nothing.
    const retry = await h.http('POST', '/carts/merge', undefined, { ...alice, ...guest });
    expect(retry.status).toBe(200);
    expect(retry.body['merged']).toEqual([
      expect.objectContaining({ guest_cart_id: guestCart, into_cart_id: mine }),
    ]);
    expect((retry.body['carts'] as { items: Record<string, { qty: number }> }[])[0]?.items[phone]?.qty).toBe(
      3,
    );
    expect(await qtyIn(mine)).toBe(3);
  });
});
