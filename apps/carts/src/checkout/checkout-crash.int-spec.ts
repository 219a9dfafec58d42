import { Client, types } from 'cassandra-driver';
import { DEMO_USERS, waitFor } from '@mw/testing';
import { CartsChild } from '../test/child';
import { CartsHarness, oid, sleep } from '../test/harness';

/**
 * The checkout outbox under SIGKILL (ADR 0060): the carts service runs as a child process and is
 * killed between the outbox intent and the status LWT, and between the LWT and the publish.
 * After a restart every checkout whose LWT applied reaches Kafka exactly as priced, none whose
 * LWT never ran does, and the status listings agree with the cart rows.
 */
describe('checkout outbox survives SIGKILL (real carts process, Cassandra, Kafka)', () => {
  const h = new CartsHarness({ CHECKOUT_RELAY_MIN_AGE_MS: '500', CHECKOUT_INTENT_GRACE_MS: '3000' });
  const phone = oid(0x4001);
  let cql: Client;
  let child: CartsChild | undefined;

  const run = async (pause: 'none' | 'after-intent' | 'after-lwt'): Promise<CartsChild> => {
    child = new CartsChild({ ...h.env, CARTS_TEST_PAUSE_AT: pause });
    await child.start();
    h.url = child.url;
    return child;
  };
  const row = async (table: string, where: string, params: unknown[]) => (await cql.execute(`SELECT * FROM ${table} WHERE ${where}`, params, { prepare: true })).rows;
  const intents = async () => (await cql.execute('SELECT checkout_id, cart_id FROM checkout_outbox')).rows.map((r) => String(r.get('checkout_id')));
  const cartRow = async (id: string) => (await row('carts', 'cart_id = ?', [types.Uuid.fromString(id)]))[0];

  beforeAll(async () => {
    await run('after-intent');
    await h.connect();
    cql = new Client({ contactPoints: [...h.config.CASSANDRA_CONTACT_POINTS], localDataCenter: h.config.CASSANDRA_LOCAL_DATACENTER, keyspace: h.config.CASSANDRA_KEYSPACE });
    await cql.connect();
    await h.product(phone, 1, 3_789_90);
    await h.drained('catalog.products.v1');
  });
  afterAll(async () => {
    await child?.kill();
    await h.stop();
    await cql?.shutdown();
  });

  it('publishes the checkout whose LWT applied, never the one whose LWT did not run, after SIGKILLs between the writes', async () => {
    // Real tokens of the project's Keycloak, verified by the child process (OIDC_ISSUER/AUDIENCE from the harness env).
    const [alice, bob] = [await h.as('alice'), await h.as('bob')];
    const cart1 = await h.createCart('MSK', alice);
    const cart2 = await h.createCart('MSK', bob);
    expect((await h.http('PUT', `/carts/${cart1}/items/${phone}`, { qty: 1 }, alice)).status).toBe(200);
    expect((await h.http('PUT', `/carts/${cart2}/items/${phone}`, { qty: 1 }, bob)).status).toBe(200);

    // Kill 1: the intent is written, the LWT never runs.
    void h.http('POST', `/carts/${cart1}/checkout`, undefined, alice).catch(() => undefined);
    const lost = await child!.pausedAt('after-intent');
    await child!.kill();
    expect(await intents()).toContain(lost);
    expect((await cartRow(cart1))?.get('status')).toBe('active');

    // Kill 2: the LWT applied (cart checking_out), nothing published.
    await run('after-lwt');
    void h.http('POST', `/carts/${cart2}/checkout`, undefined, bob).catch(() => undefined);
    const applied = await child!.pausedAt('after-lwt');
    await child!.kill();
    expect((await cartRow(cart2))?.get('status')).toBe('checking_out');
    expect(await intents()).toContain(applied);
    const lookups = (await row('carts_by_user_status', 'user_id = ? AND status IN (?, ?)', [DEMO_USERS.bob.id, 'active', 'checking_out'])).map((r) => r.get('status'));
    // A checkout moves no lookup row (ADR 0060, the write path): the cart stays under its "active" row…
    expect(lookups).toEqual(['active']);
    await sleep(500);
    expect(h.checkoutsOf(cart2)).toEqual([]);

    // Restart without a pause: the relay publishes the applied checkout and discards the lost one.
    await run('none');
    await waitFor(async () => h.checkoutsOf(cart2).length >= 1, 30_000, 'the applied checkout published by the relay');
    await waitFor(async () => (await intents()).length === 0, 30_000, 'outbox empty');
    expect(h.checkoutsOf(cart2).map((e) => e.payload['checkout_id'])).toEqual([applied]);
    expect(h.checkoutsOf(cart2)[0]?.payload).toMatchObject({ user_id: DEMO_USERS.bob.id, total: 3_789_90, lines: [{ product_id: phone, qty: 1, unit_price: 3_789_90 }] });
    expect(h.checkoutsOf(cart1)).toEqual([]);
    expect(h.checkouts.some((e) => e.payload['checkout_id'] === lost)).toBe(false);

    // …but the listings answer from the cart rows.
    const list = async (who: Record<string, string>, s: string) => (await h.http('GET', `/carts?status=${s}`, undefined, who)).body['cart_ids'];
    expect(await list(bob, 'active')).toEqual([]);
    expect(await list(bob, 'checking_out')).toEqual([cart2]);
    expect(await list(alice, 'active')).toEqual([cart1]);

    // The cart whose checkout was lost is still active and checks out normally, once.
    const again = await h.http('POST', `/carts/${cart1}/checkout`, undefined, alice);
    expect(again.status).toBe(202);
    expect(again.body['checkout_id']).not.toBe(lost);
    await waitFor(async () => h.checkoutsOf(cart1).length >= 1, 30_000, 'the new checkout');
    await sleep(1500);
    expect(h.checkoutsOf(cart1).map((e) => e.payload['checkout_id'])).toEqual([again.body['checkout_id']]);
  });
});
