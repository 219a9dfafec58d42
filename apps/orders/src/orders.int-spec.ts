import { uniqueName, waitFor } from '@mw/testing';
import { OrdersHarness } from './test/harness';

/** The orders HTTP API and service lifecycle: real Kafka, real MongoDB, private topics, HTTP on a random port. */
describe('orders service (real Kafka + MongoDB)', () => {
  const h = new OrdersHarness({ ORDER_HISTORY_READ_PREFERENCE: 'primary' }); // read-your-writes; secondaries: query-shapes.int-spec
  const user = uniqueName('user');

  beforeAll(() => h.start(1), 120_000);
  afterAll(() => h.stop());

  it('creates exactly one order per checkout (delivered three times) and serves it with its saga state', async () => {
    const c = h.checkout({ user_id: user });
    await h.sendCheckout(c, 3);
    await h.waitSeen(c.order_id, 'OrderCreated');
    const order = await h.waitState(c.order_id, 'AWAITING_STOCK');
    expect(order).toMatchObject({ status: 'pending', reason: null, totals: { total: '39998.00' }, history: [], version: 1 });
    await new Promise((r) => setTimeout(r, 1000));
    expect(h.for(c.order_id, 'OrderCreated')).toHaveLength(1);
    expect(h.for(c.order_id, 'OrderCreated')[0]).toMatchObject({ key: user, correlation_id: `saga-${c.checkout_id}` });
  });

  it('pages a user history newest first; the last page is exact (no cursor)', async () => {
    const pager = uniqueName('pager');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const c = h.checkout({ user_id: pager });
      ids.push(c.order_id);
      await h.sendCheckout(c);
      await h.waitState(c.order_id, 'AWAITING_STOCK');
    }
    const page = async (cursor?: string) =>
      (await (await fetch(`${h.urls[0]}/orders?user_id=${pager}&limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json()) as { items: { id: string }[]; next_cursor: string | null };
    const first = await page();
    expect(first.items).toHaveLength(2);
    expect(first.next_cursor).not.toBeNull();
    const second = await page(first.next_cursor!);
    expect(second.items).toHaveLength(2);
    expect(second.next_cursor).toBeNull();
    expect([...first.items, ...second.items].map((o) => o.id).sort()).toEqual([...ids].sort());
  });

  it('answers bad HTTP input with 400 and a JSON body naming the field', async () => {
    const bad = await fetch(`${h.urls[0]}/orders/not-an-id`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'COMMON.VALIDATION_FAILED', errors: [{ field: 'params.id' }] });
    const injection = await fetch(`${h.urls[0]}/orders?user_id[$gt]=`);
    expect(injection.status).toBe(400);
    expect(JSON.stringify(await injection.json())).toContain('query');
    expect((await fetch(`${h.urls[0]}/orders/65f000000000000000000099`)).status).toBe(404);
  });

  it('serves readiness, metrics and the OpenAPI document', async () => {
    const ready = await fetch(`${h.urls[0]}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ checks: { mongodb: { status: 'up' }, kafka: { status: 'up' } } });
    expect(await (await fetch(`${h.urls[0]}/metrics`)).text()).toContain('kafka_messages_processed_total');
    const doc = (await (await fetch(`${h.urls[0]}/docs/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/orders/{id}', '/orders', '/health/ready']));
  });

  it('shuts down gracefully: the consumer leaves its group', async () => {
    const admin = h.kafka.admin();
    await admin.connect();
    await h.apps[0]!.close();
    h.apps.length = 0;
    const after = await waitFor(async () => {
      const g = (await admin.describeGroups([h.config.KAFKA_GROUP_ID])).groups[0];
      return g?.state === 'Empty' ? g : undefined;
    }, 30_000, 'group empty');
    await admin.disconnect();
    expect(after.members).toEqual([]);
  });
});
