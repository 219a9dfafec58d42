import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as CassandraClient } from 'cassandra-driver';
import { ensureInfra } from '@mw/infra';
import { testEnv, type TestUser, waitFor } from '@mw/testing';
import { Stack } from './stack';

/** A span as Zipkin's v2 API answers it (names lower-cased by Zipkin; INTERNAL spans have no kind). */
interface ZipkinSpan {
  readonly traceId: string;
  readonly id: string;
  readonly parentId?: string;
  readonly name: string;
  readonly kind?: 'SERVER' | 'CLIENT' | 'PRODUCER' | 'CONSUMER';
  readonly timestamp: number;
  readonly localEndpoint?: { readonly serviceName?: string };
  readonly tags?: Readonly<Record<string, string>>;
  readonly annotations?: readonly { readonly timestamp: number; readonly value: string }[];
}

/** One step of the causal chain: which service, and how to recognise its span. */
interface Step {
  readonly label: string;
  readonly service: string;
  readonly match: (s: ZipkinSpan) => boolean;
}

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
/** A traceparent the test sends with its request: the trace id is the test's, so it knows what to ask Zipkin for. */
const clientTraceparent = (): { traceparent: string; traceId: string; spanId: string } => {
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
};

const serviceOf = (s: ZipkinSpan): string => s.localEndpoint?.serviceName ?? '';
const named = (name: string) => (s: ZipkinSpan) => s.name === name.toLowerCase();
const sendTo = (topic: string, outbox: boolean) => (s: ZipkinSpan) =>
  s.kind === 'PRODUCER' && s.name === `send ${topic}`.toLowerCase() && (s.tags?.['mw.outbox'] !== undefined) === outbox;

/** True when `span` lies under `ancestor` (parent links, within the trace). */
function descends(span: ZipkinSpan, ancestor: ZipkinSpan, byId: ReadonlyMap<string, ZipkinSpan>): boolean {
  for (let cur: ZipkinSpan | undefined = span, n = 0; cur && n < 200; n++) {
    if (cur.parentId === ancestor.id) return true;
    cur = cur.parentId ? byId.get(cur.parentId) : undefined;
  }
  return false;
}

/**
 * Each step's span (the earliest that matches, after the previous step's) must exist and lie under the
 * previous step's span and start after it: the chain is causal, not merely present.
 */
function assertChain(spans: readonly ZipkinSpan[], steps: readonly Step[], first?: ZipkinSpan): ZipkinSpan[] {
  const byId = new Map(spans.map((s) => [s.id, s]));
  const found: ZipkinSpan[] = [];
  let prev = first;
  for (const step of steps) {
    const candidates = spans
      .filter((s) => serviceOf(s) === step.service && step.match(s))
      .filter((s) => !prev || (descends(s, prev, byId) && s.timestamp >= prev.timestamp))
      .sort((a, b) => a.timestamp - b.timestamp);
    const span = candidates[0];
    if (!span) {
      const seen = spans.map((s) => `${serviceOf(s)}:${s.name}(${s.id}<-${s.parentId ?? '-'})`).join(', ');
      throw new Error(`step "${step.label}" (${step.service}) not found under ${prev ? `${serviceOf(prev)}:${prev.name}` : 'the trace'}; spans: ${seen}`);
    }
    found.push(span);
    prev = span;
  }
  return found;
}

/**
 * Distributed tracing end to end (ADR 0014): the services as processes with tracing on, their spans
 * sent to a real Zipkin (tools/infra runs it from Maven Central), read back over Zipkin's HTTP API.
 */
describe('traces: one checkout is one trace in Zipkin', () => {
  let s: Stack;
  let zipkin = '';
  let categoryId = '';
  let user: TestUser;

  const trace = async (traceId: string): Promise<ZipkinSpan[]> => {
    const r = await fetch(`${zipkin}/api/v2/trace/${traceId}`);
    return r.status === 200 ? ((await r.json()) as ZipkinSpan[]) : [];
  };
  /**
   * The trace once `done` holds on it and no more spans arrive: each of five processes exports its
   * spans in its own 1 s batches, so the span `done` waits for may land before an earlier step's
   * batch from another process — the trace is read until two reads 1.5 s apart agree.
   */
  const traceWhen = async (traceId: string, done: (spans: ZipkinSpan[]) => boolean, what: string): Promise<ZipkinSpan[]> => {
    let spans = await waitFor(async () => {
      const found = await trace(traceId);
      return done(found) ? found : undefined;
    }, 30_000, what).catch(async (e: unknown) => {
      const found = await trace(traceId);
      throw new Error(`${(e as Error).message}; Zipkin has ${found.map((x) => `${serviceOf(x)}:${x.name}`).join(', ') || 'nothing'}`);
    });
    for (let reads = 0; reads < 10; reads++) {
      await new Promise((r) => setTimeout(r, 1_500));
      const again = await trace(traceId);
      if (again.length === spans.length) break;
      spans = again;
    }
    return spans;
  };

  beforeAll(async () => {
    const infra = await ensureInfra({ servers: ['zipkin'] });
    zipkin = infra['ZIPKIN_URL'] ?? '';
    const tracing = { OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_ZIPKIN_ENDPOINT: `${zipkin}/api/v2/spans`, OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_TRACES_SAMPLER_ARG: '1' };
    s = new Stack(process.env['E2E_DIST'] || undefined, {
      prefix: 'e2etr',
      customers: 1,
      env: {
        catalog: tracing,
        'catalog-projector': tracing,
        inventory: tracing,
        // restarted twice by the crash case: a killed member leaves the group after 6 s, not 30
        carts: { ...tracing, KAFKA_SESSION_TIMEOUT_MS: '6000', KAFKA_HEARTBEAT_INTERVAL_MS: '1000', KAFKA_HANDLER_TIMEOUT_MS: '5000' },
        // info: the saga's log lines, which must carry the trace id
        orders: { ...tracing, LOG_LEVEL: 'info' },
      },
    });
    await s.start();
    const c = s.customers[0];
    if (!c) throw new Error('no customer');
    user = c;
    const slug = `e2e-${s.run.replace(/_/g, '-')}`.slice(0, 60);
    const cat = await s.http('catalog', 'POST', '/categories', { name: 'Трассы e2e', slug, parent_id: null });
    expect(cat.status).toBe(201);
    categoryId = cat.body['id'] as string;
  }, 240_000);

  afterAll(() => s?.stop(), 60_000);

  /** A product written through the catalog under a trace of the test's; carts prices it, inventory stocks it. */
  async function product(): Promise<{ id: string; traceId: string }> {
    const tp = clientTraceparent();
    const p = await s.http('catalog', 'POST', '/products', { name: 'Смартфон трасса', category_id: categoryId, price: '19990.00', attributes: {} }, { traceparent: tp.traceparent });
    expect(p.status).toBe(201);
    const id = p.body['id'] as string;
    expect(await s.relayCatalog()).toBeGreaterThanOrEqual(1);
    const restock = await s.http('inventory', 'POST', `/stock/${id}/MSK/restock`, { qty: 10, reason: 'delivery' }, { 'idempotency-key': `delivery-${id}` });
    expect(restock.status).toBeLessThan(300);
    return { id, traceId: tp.traceId };
  }

  async function cartWith(productId: string): Promise<string> {
    const c = await s.http('carts', 'POST', '/carts', { zone: 'MSK' }, {}, user);
    expect(c.status).toBe(201);
    const cartId = c.body['cart_id'] as string;
    await waitFor(async () => (await s.http('carts', 'PUT', `/carts/${cartId}/items/${productId}`, { qty: 1 }, {}, user)).status === 200, 30_000, `carts knows ${productId}`);
    return cartId;
  }

  const orderOf = (checkoutId: string) =>
    waitFor(
      () => s.db('orders').collection<{ _id: string; traceparent?: string; status: string }>('orders').findOne({ checkout_id: checkoutId }).then((d) => d ?? undefined),
      30_000,
      `order of checkout ${checkoutId}`,
    );
  const confirmed = (orderId: string) =>
    waitFor(
      () => s.db('orders').collection<{ _id: string; status: string }>('orders').findOne({ _id: orderId, status: 'confirmed' }).then((d) => d ?? undefined),
      30_000,
      `order ${orderId} confirmed`,
    );

  /** The saga after the checkout message reached orders, each step under the previous one. */
  const sagaSteps = (): Step[] => [
    { label: 'orders handles CheckoutRequested', service: 'orders', match: named('handle CheckoutRequested') },
    { label: 'orders relay publishes ReserveStock from its outbox', service: 'orders', match: sendTo(s.topics.commands, true) },
    { label: 'inventory handles ReserveStock', service: 'inventory', match: named('handle ReserveStock') },
    { label: 'inventory relay publishes StockReserved', service: 'inventory', match: sendTo(s.topics.events, true) },
    { label: 'orders handles StockReserved', service: 'orders', match: named('handle StockReserved') },
  ];
  /** After the payment, two branches of the confirming transition: the sale in inventory, and the confirmation (ADR 0015 §3). */
  const afterPayment = (): Step[][] => [
    [
      { label: 'orders relay publishes CommitStock', service: 'orders', match: sendTo(s.topics.commands, true) },
      { label: 'inventory handles CommitStock', service: 'inventory', match: named('handle CommitStock') },
    ],
    [
      { label: 'orders relay publishes OrderConfirmed', service: 'orders', match: sendTo(s.topics.orders, true) },
      { label: 'carts handles OrderConfirmed', service: 'carts', match: named('handle OrderConfirmed') },
    ],
  ];
  const has = (name: string, service: string) => (spans: ZipkinSpan[]) => spans.some((x) => serviceOf(x) === service && x.name === name.toLowerCase());

  /** The payment step: in the checkout's trace (from the order's traceparent), after stock was reserved. */
  function assertPayment(spans: ZipkinSpan[], checkoutHandled: ZipkinSpan, stockReserved: ZipkinSpan): ZipkinSpan {
    const byId = new Map(spans.map((x) => [x.id, x]));
    const pay = (step: string): ZipkinSpan => {
      const span = spans.find((x) => serviceOf(x) === 'orders' && x.name === `payment ${step}`);
      if (!span) throw new Error(`no payment ${step} span`);
      expect(descends(span, checkoutHandled, byId)).toBe(true);
      return span;
    };
    const sale = pay('sale'); // authorize and capture in one PSP call (ADR 0015 §11)
    expect(sale.timestamp).toBeGreaterThanOrEqual(stockReserved.timestamp);
    return sale;
  }

  it('carts HTTP → CheckoutRequested → orders → ReserveStock → inventory → StockReserved → payment → CommitStock and OrderConfirmed → … → carts ordered, under the trace id the client sent; the catalog write that made the product is one trace too', async () => {
    const p = await product();
    const cartId = await cartWith(p.id);
    const tp = clientTraceparent();
    const r = await s.http('carts', 'POST', `/carts/${cartId}/checkout`, undefined, { traceparent: tp.traceparent }, user);
    expect(r.status).toBe(202);
    const order = await orderOf(r.body['checkout_id'] as string);
    await confirmed(order._id);
    // the order names its checkout's trace: the one the client started
    expect(order.traceparent?.slice(3, 35)).toBe(tp.traceId);

    const spans = await traceWhen(tp.traceId, has('handle OrderConfirmed', 'carts'), 'the checkout trace up to carts handling OrderConfirmed');
    expect(new Set(spans.map((x) => x.traceId))).toEqual(new Set([tp.traceId]));
    const server = spans.find((x) => serviceOf(x) === 'carts' && x.kind === 'SERVER');
    expect(server?.parentId).toBe(tp.spanId);
    const [directPublish] = assertChain(spans, [{ label: 'carts publishes CheckoutRequested', service: 'carts', match: sendTo(s.topics.checkout, false) }], server);
    const saga = assertChain(spans, sagaSteps(), directPublish);
    const sale = assertPayment(spans, saga[0]!, saga[4]!);
    for (const branch of afterPayment()) assertChain(spans, branch, sale);
    // the saga's transitions are events of the spans that caused them
    const transitions = spans.filter((x) => serviceOf(x) === 'orders').flatMap((x) => x.annotations ?? []).filter((a) => a.value.includes('saga.transition'));
    expect(transitions.length).toBeGreaterThanOrEqual(2); // reserved, sold = confirmed
    expect(new Set(spans.map(serviceOf))).toEqual(new Set(['carts', 'orders', 'inventory']));

    // the JSON log lines of the saga carry the trace id (README: from an order id to its trace)
    const lines = readFileSync(join(s.logDir, 'orders.log'), 'utf8')
      .split('\n')
      .filter((l) => l.includes(order._id) && l.startsWith('{'))
      .map((l) => JSON.parse(l) as { trace_id?: string; span_id?: string });
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) {
      expect(l.trace_id).toBe(tp.traceId);
      expect(l.span_id).toMatch(/^[0-9a-f]{16}$/);
    }

    // the product's trace: catalog HTTP → its outbox → the carts price table and the projector's read model
    const projected = (x: ZipkinSpan): boolean => serviceOf(x) === 'catalog-projector' && x.name === `handle batch ${s.topics.products}`.toLowerCase();
    const productTrace = await traceWhen(p.traceId, (x) => has('handle ProductCreated', 'carts')(x) && x.some(projected), 'the product trace');
    expect(new Set(productTrace.map(serviceOf))).toEqual(new Set(['catalog', 'carts', 'catalog-projector']));
    const catalogServer = productTrace.find((x) => serviceOf(x) === 'catalog' && x.kind === 'SERVER');
    if (!catalogServer) throw new Error('no catalog server span');
    const byId = new Map(productTrace.map((x) => [x.id, x]));
    for (const handled of [productTrace.find((x) => serviceOf(x) === 'carts' && x.name === 'handle productcreated'), productTrace.find(projected)]) {
      expect(handled && descends(handled, catalogServer, byId)).toBe(true);
    }
  });

  it('a carts process SIGKILLed between its outbox write and the publish: the restarted relay publishes under the same trace, and the saga continues it', async () => {
    const p = await product();
    const cartId = await cartWith(p.id);
    // carts stops for good after the intent and the status LWT are written; its relay would wait 5 min
    await s.signal('carts', 'SIGKILL');
    await s.restart('carts', 120_000, { CARTS_TEST_PAUSE_AT: 'after-lwt', CHECKOUT_RELAY_MIN_AGE_MS: '300000', CHECKOUT_INTENT_GRACE_MS: '600000' });
    const tp = clientTraceparent();
    const pending = s.http('carts', 'POST', `/carts/${cartId}/checkout`, undefined, { traceparent: tp.traceparent }, user).catch(() => undefined);
    const checkoutId = await waitFor(async () => /PAUSED after-lwt (\S+)/.exec(s.tail('carts', 200))?.[1], 30_000, 'carts paused after its outbox write');

    // the intent row carries the request's trace context
    const env = testEnv();
    const cassandra = new CassandraClient({ contactPoints: env.cassandraContactPoints, localDataCenter: env.cassandraDatacenter });
    let stored: string | undefined;
    try {
      const rs = await cassandra.execute(`SELECT checkout_id, traceparent FROM ${s.keyspaces.carts}.checkout_outbox`);
      stored = rs.rows.find((row) => String(row.get('checkout_id')) === checkoutId)?.get('traceparent') as string | undefined;
    } finally {
      await cassandra.shutdown();
    }
    expect(stored?.slice(3, 35)).toBe(tp.traceId);

    await s.signal('carts', 'SIGKILL');
    await pending;
    expect(await s.db('orders').collection('orders').countDocuments({ checkout_id: checkoutId })).toBe(0); // nothing was published
    await s.restart('carts', 120_000, { CARTS_TEST_PAUSE_AT: 'none' });

    const order = await orderOf(checkoutId);
    await confirmed(order._id);
    expect(order.traceparent?.slice(3, 35)).toBe(tp.traceId);
    const spans = await traceWhen(tp.traceId, has('handle OrderConfirmed', 'carts'), 'the trace of the crashed checkout up to carts handling OrderConfirmed');
    // the killed process sent nothing of its own; the restarted relay's publish is a child of the span stored with the intent
    const relayed = spans.filter((x) => serviceOf(x) === 'carts' && sendTo(s.topics.checkout, true)(x));
    expect(relayed).toHaveLength(1);
    expect(relayed[0]?.tags?.['mw.outbox']).toBe('carts.checkout_outbox');
    expect(relayed[0]?.parentId).toBe(stored?.slice(36, 52));
    const saga = assertChain(spans, sagaSteps(), relayed[0]);
    const sale = assertPayment(spans, saga[0]!, saga[4]!);
    for (const branch of afterPayment()) assertChain(spans, branch, sale);
  });
});
