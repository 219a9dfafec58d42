import { type TestUser, waitFor } from '@mw/testing';
import { HOLD_SECONDS, PAYMENT_TIMEOUT_MS, Recorded, Stack } from './stack';

interface OrderBody {
  id: string;
  status: string;
  state: string;
  reason: string | null;
  totals: { items: number; total: string; currency: string };
  payment: { step: string | null; authorized: boolean; captured: boolean; reversed: string | null; decline_code: string | null };
  history: { from: string; to: string; event: string; cause: string }[];
  version: number;
}
interface StockLevel {
  zone: string;
  available: number;
  reserved: number;
  committed: number;
}
interface Reservation {
  status: string;
  release_reason?: string;
}
interface Operation {
  op: string;
  outcome: { status: string };
}

/**
 * The checkout saga across every service, each a real process from its built bundle (as `npm start`
 * runs them), over HTTP and Kafka on private databases, keyspaces, groups and topics. Every case
 * asserts the state the services keep (order over HTTP, stock and reservations over HTTP, the cart
 * over HTTP, the payment simulator's ledger in MongoDB), not only the events.
 */
describe('checkout saga end to end (catalog, inventory, carts, orders as processes)', () => {
  // E2E_DIST runs the suite against other bundles (e.g. a mutant built in a separate worktree).
  const s = new Stack(process.env['E2E_DIST'] || undefined);
  let categoryId = '';
  let seq = 0;

  beforeAll(async () => {
    await s.start();
    const slug = `e2e-${s.run.replace(/_/g, '-')}`.slice(0, 60);
    const cat = await s.http('catalog', 'POST', '/categories', { name: 'Смартфоны e2e', slug, parent_id: null });
    expect(cat.status).toBe(201);
    categoryId = cat.body['id'] as string;
  }, 240_000);

  afterAll(() => s.stop(), 60_000);

  /** A product created through the catalog API, known to carts (priced) and to the projector (card), with stock in MSK. */
  async function product(price: string, msk: number): Promise<string> {
    const p = await s.http('catalog', 'POST', '/products', { name: `Смартфон ${++seq}`, category_id: categoryId, price, attributes: { color: 'черный' } });
    expect(p.status).toBe(201);
    const id = p.body['id'] as string;
    expect(await s.relayCatalog()).toBeGreaterThanOrEqual(1);
    const card = await waitFor(async () => {
      const r = await s.http('catalog', 'GET', `/products/${id}/card`);
      return r.status === 200 ? r.body : undefined;
    }, 30_000, `card of ${id} from the projector`);
    expect(card['price']).toBe(price);
    const restock = await s.http('inventory', 'POST', `/stock/${id}/MSK/restock`, { qty: msk, reason: 'delivery' }, { 'idempotency-key': `delivery-${id}-MSK` });
    expect(restock.status).toBeLessThan(300);
    return id;
  }

  /** Who owns each cart: carts answer only their owner (anyone else gets 404). */
  const owners = new Map<string, TestUser>();
  const ruleUser = (rule: 'decline' | 'hang'): TestUser => {
    const u = s.ruleUsers?.[rule];
    if (!u) throw new Error(`no ${rule} user`);
    return u;
  };
  const ownerOf = (cartId: string): TestUser => {
    const owner = owners.get(cartId);
    if (!owner) throw new Error(`no owner recorded for cart ${cartId}`);
    return owner;
  };
  const customer = (n: number): TestUser => {
    const c = s.customers[n];
    if (!c) throw new Error(`no customer ${n}`);
    return c;
  };

  async function cart(user: TestUser, lines: [string, number][]): Promise<string> {
    const c = await s.http('carts', 'POST', '/carts', { zone: 'MSK' }, {}, user);
    expect(c.status).toBe(201);
    const id = c.body['cart_id'] as string;
    owners.set(id, user);
    for (const [productId, qty] of lines) {
      // carts learns the product (and its price) from the products topic: wait for it, then set the quantity only
      await waitFor(async () => (await s.http('carts', 'PUT', `/carts/${id}/items/${productId}`, { qty }, {}, user)).status === 200, 30_000, `carts knows ${productId}`);
    }
    return id;
  }

  async function checkout(cartId: string): Promise<{ checkoutId: string; orderId: string; startedAt: number }> {
    const startedAt = Date.now();
    const r = await s.http('carts', 'POST', `/carts/${cartId}/checkout`, undefined, {}, ownerOf(cartId));
    expect(r.status).toBe(202);
    const checkoutId = r.body['checkout_id'] as string;
    const order = await waitFor(
      () => s.db('orders').collection<{ _id: string }>('orders').findOne({ checkout_id: checkoutId }).then((d) => d ?? undefined),
      30_000,
      `order of checkout ${checkoutId}`,
    );
    // carts' answer names the order before orders has made it: the same id
    expect(r.body['order_id']).toBe(order._id);
    return { checkoutId, orderId: order._id, startedAt };
  }

  async function terminal(orderId: string, timeoutMs = 30_000): Promise<OrderBody> {
    return waitFor(async () => {
      const r = await s.http<OrderBody>('orders', 'GET', `/orders/${orderId}`, undefined, {}, 'sue');
      return r.status === 200 && (r.body.state === 'CONFIRMED' || r.body.state === 'CANCELLED') ? r.body : undefined;
    }, timeoutMs, `order ${orderId} terminal`);
  }

  async function stock(productId: string): Promise<StockLevel> {
    const r = await s.http<StockLevel[] | { zones: StockLevel[] }>('inventory', 'GET', `/stock/${productId}`);
    expect(r.status).toBe(200);
    const zones = Array.isArray(r.body) ? r.body : r.body.zones;
    const msk = zones.find((z) => z.zone === 'MSK');
    if (!msk) throw new Error(`no MSK stock for ${productId}: ${JSON.stringify(r.body)}`);
    return msk;
  }

  const stockIs = (productId: string, want: Omit<StockLevel, 'zone'>, timeoutMs = 10_000) =>
    waitFor(async () => {
      const got = await stock(productId);
      return got.available === want.available && got.reserved === want.reserved && got.committed === want.committed ? got : undefined;
    }, timeoutMs, `stock of ${productId} = ${JSON.stringify(want)}`).catch(async (e: unknown) => {
      throw new Error(`${(e as Error).message}; last: ${JSON.stringify(await stock(productId))}`);
    });

  const reservation = async (orderId: string): Promise<Reservation> => (await s.http<Reservation>('inventory', 'GET', `/reservations/${orderId}`)).body;

  const cartStatus = async (cartId: string, want: string): Promise<string> =>
    waitFor(async () => {
      const st = (await s.http('carts', 'GET', `/carts/${cartId}`, undefined, {}, ownerOf(cartId))).body['status'] as string;
      return st === want ? st : undefined;
    }, 15_000, `cart ${cartId} ${want}`);

  const payments = (orderId: string): Promise<Operation[]> => s.db('orders').collection<Operation>('payment_sim_operations').find({ reference: orderId }).toArray();
  const ops = async (orderId: string, op: string): Promise<Operation[]> => (await payments(orderId)).filter((o) => o.op === op);

  const ledgerOk = async (): Promise<void> => {
    const r = await s.http<{ ok: boolean; failures: unknown[] }>('inventory', 'GET', '/ledger/check', undefined, {}, 'otto');
    expect(r.body).toMatchObject({ ok: true, failures: [] });
  };

  it('happy path: catalog product, restock, cart, checkout → order CONFIRMED, stock committed, cart ordered, one capture', async () => {
    const p = await product('1999.90', 10);
    const cartId = await cart(customer(0), [[p, 2]]);
    const view = (await s.http('carts', 'GET', `/carts/${cartId}`, undefined, {}, ownerOf(cartId))).body;
    expect(view['items']).toMatchObject({ [p]: { qty: 2, unit_price: '1999.90' } });

    const { orderId } = await checkout(cartId);
    const order = await terminal(orderId);
    expect(order).toMatchObject({ state: 'CONFIRMED', status: 'confirmed', reason: null, totals: { total: '3999.80', currency: 'RUB' } });
    expect(order.payment).toMatchObject({ authorized: true, captured: true, reversed: null });
    await stockIs(p, { available: 8, reserved: 0, committed: 2 });
    expect((await reservation(orderId)).status).toBe('committed');
    await cartStatus(cartId, 'ordered');
    expect((await ops(orderId, 'sale')).map((o) => o.outcome.status)).toEqual(['captured']);
    expect(await ops(orderId, 'void')).toHaveLength(0);
    expect(await ops(orderId, 'refund')).toHaveLength(0);
    await ledgerOk();
  });

  it('after the order: the customer cancels a confirmed order → refunded once, units back on sale, cart stays ordered; a delivered order cannot be cancelled', async () => {
    const p = await product('2499.00', 6);
    const buyer = customer(0);
    const cartId = await cart(buyer, [[p, 2]]);
    const { orderId } = await checkout(cartId);
    expect((await terminal(orderId)).state).toBe('CONFIRMED');
    await stockIs(p, { available: 4, reserved: 0, committed: 2 });

    const cancel = await s.http<OrderBody>('orders', 'POST', `/orders/${orderId}/cancel`, undefined, {}, buyer);
    expect(cancel.status).toBe(202);
    const cancelled = await waitFor(async () => {
      const r = await s.http<OrderBody & { stock_return: string | null }>('orders', 'GET', `/orders/${orderId}`, undefined, {}, 'sue');
      return r.body.state === 'CANCELLED' ? r.body : undefined;
    }, 30_000, `order ${orderId} cancelled`);
    expect(cancelled).toMatchObject({ status: 'cancelled', reason: 'CANCELLED_BY_USER', stock_return: 'returned', payment: { captured: true, reversed: 'refunded' } });
    await stockIs(p, { available: 6, reserved: 0, committed: 0 });
    expect((await reservation(orderId)).status).toBe('returned');
    expect((await ops(orderId, 'refund')).map((o) => o.outcome.status)).toEqual(['refunded']);
    await cartStatus(cartId, 'ordered');
    // The same cancel again changes nothing.
    expect((await s.http<OrderBody>('orders', 'POST', `/orders/${orderId}/cancel`, undefined, {}, buyer)).body.version).toBe(cancelled.version);
    await ledgerOk();

    // A second order is delivered: its cancel is refused and its units stay sold.
    const cart2 = await cart(buyer, [[p, 1]]);
    const second = await checkout(cart2);
    expect((await terminal(second.orderId)).state).toBe('CONFIRMED');
    expect((await s.http<OrderBody>('orders', 'POST', `/orders/${second.orderId}/delivery`, undefined, {}, 'otto')).body.state).toBe('DELIVERING');
    const refused = await s.http('orders', 'POST', `/orders/${second.orderId}/cancel`, undefined, {}, buyer);
    expect({ status: refused.status, code: refused.body['code'] }).toEqual({ status: 409, code: 'ORDERS.CANCEL_REFUSED' });
    expect((await s.http<OrderBody>('orders', 'POST', `/orders/${second.orderId}/completion`, undefined, {}, 'otto')).body.status).toBe('completed');
    await stockIs(p, { available: 5, reserved: 0, committed: 1 });
    await ledgerOk();
  });

  it('stock short: two carts race for the last unit at once → exactly one CONFIRMED, the other CANCELLED (STOCK_REJECTED), its cart active again, nothing charged to it', async () => {
    const p = await product('500.00', 1);
    const carts = [await cart(customer(1), [[p, 1]]), await cart(customer(2), [[p, 1]])];
    // Both checkouts start together, and inventory is paused until both ReserveStock commands are on
    // the topic: the last unit is contested by two reservations in flight at once, never sold before
    // the second checkout begins.
    const inventory = s.pid('inventory');
    process.kill(inventory, 'SIGSTOP');
    let started: Awaited<ReturnType<typeof checkout>>[] = [];
    try {
      started = await Promise.all(carts.map((c) => checkout(c)));
      const commanded = (orderId: string): boolean => s.recorded.some((m) => m.type === 'ReserveStock' && m.payload['order_id'] === orderId);
      await waitFor(async () => started.every((o) => commanded(o.orderId)) || undefined, 30_000, 'both ReserveStock commands on the topic');
    } finally {
      process.kill(inventory, 'SIGCONT');
    }
    const orders = await Promise.all(started.map((o) => terminal(o.orderId)));
    expect(orders.map((o) => (o.state === 'CONFIRMED' ? o.state : `${o.state} ${o.reason}`)).sort()).toEqual(['CANCELLED STOCK_REJECTED', 'CONFIRMED']);
    const w = orders.findIndex((o) => o.state === 'CONFIRMED');
    const winner = started[w]?.orderId ?? '';
    const loser = started[1 - w]?.orderId ?? '';
    const winnerCart = carts[w] ?? '';
    const loserCart = carts[1 - w] ?? '';
    await stockIs(p, { available: 0, reserved: 0, committed: 1 });
    expect((await reservation(winner)).status).toBe('committed');
    expect((await reservation(loser)).status).toBe('rejected');
    await cartStatus(winnerCart, 'ordered');
    await cartStatus(loserCart, 'active');
    expect((await ops(winner, 'sale')).map((o) => o.outcome.status)).toEqual(['captured']);
    expect(await payments(loser)).toHaveLength(0);
    await ledgerOk();
  });

  it('payment declined → stock released by the saga (not by expiry), order CANCELLED (PAYMENT_DECLINED), cart active, nothing captured', async () => {
    const p = await product('750.00', 5);
    const cartId = await cart(ruleUser('decline'), [[p, 3]]);
    const { orderId, startedAt } = await checkout(cartId);
    const order = await terminal(orderId);
    expect(order).toMatchObject({ state: 'CANCELLED', reason: 'PAYMENT_DECLINED', payment: { captured: false, decline_code: 'USER_BLOCKED' } });
    // released as the compensation, well before the hold would have expired it
    await stockIs(p, { available: 5, reserved: 0, committed: 0 }, HOLD_SECONDS * 1000 - (Date.now() - startedAt) - 500);
    expect(await reservation(orderId)).toMatchObject({ status: 'released', release_reason: 'compensation' });
    await cartStatus(cartId, 'active');
    expect((await payments(orderId)).map((o) => `${o.op}:${o.outcome.status}`)).toEqual(['sale:declined']);
  });

  it('payment never answers → deadline compensation (PAYMENT_DEADLINE_EXCEEDED): the sale reversed (a refund of nothing, then a void), stock released, cart active', async () => {
    const p = await product('1200.00', 5);
    const cartId = await cart(ruleUser('hang'), [[p, 1]]);
    const { orderId, startedAt } = await checkout(cartId);
    const order = await terminal(orderId, PAYMENT_TIMEOUT_MS + 20_000);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(PAYMENT_TIMEOUT_MS);
    expect(order).toMatchObject({ state: 'CANCELLED', reason: 'PAYMENT_DEADLINE_EXCEEDED', payment: { captured: false, reversed: 'voided' } });
    expect(order.history.map((h) => h.event)).toContain('DeadlinePassed');
    await stockIs(p, { available: 5, reserved: 0, committed: 0 });
    expect(await reservation(orderId)).toMatchObject({ status: 'released', release_reason: 'compensation' });
    await cartStatus(cartId, 'active');
    expect(await ops(orderId, 'sale')).toHaveLength(0);
    expect((await ops(orderId, 'void')).map((o) => o.outcome.status)).toEqual(['voided']);
  });

  it('reservation expires before the sale lands → the confirmed order is refunded and CANCELLED (COMMIT_FAILED after confirmation), stock back', async () => {
    // The payment deadline ends a commit window before the hold does (ADR 0015 §3), so the hold
    // cannot run out under a normal confirmation. What does let it run out: inventory stalls. The
    // inventory process is SIGSTOPped the moment it has answered StockReserved and resumed after
    // the hold, so the sale (CommitStock) sent with the confirmation reaches it too late.
    const p = await product('990.00', 5);
    const cartId = await cart(customer(0), [[p, 2]]);
    const inventory = s.pid('inventory');
    let stoppedAt = 0;
    s.onMessage = (m) => {
      if (m.type === 'StockReserved' && stoppedAt === 0) {
        process.kill(inventory, 'SIGSTOP');
        stoppedAt = Date.now();
      }
    };
    try {
      const { orderId } = await checkout(cartId);
      await waitFor(async () => stoppedAt > 0, 30_000, 'StockReserved');
      const confirmed = await waitFor(async () => {
        const r = await s.http<OrderBody>('orders', 'GET', `/orders/${orderId}`, undefined, {}, 'sue');
        return r.body.state === 'CONFIRMED' ? r.body : undefined;
      }, 15_000, 'order CONFIRMED (captured, its sale sent)');
      expect(confirmed.payment.captured).toBe(true);
      await new Promise((r) => setTimeout(r, Math.max(0, stoppedAt + HOLD_SECONDS * 1000 + 1000 - Date.now())));
      process.kill(inventory, 'SIGCONT');

      const order = await waitFor(async () => {
        const r = await s.http<OrderBody>('orders', 'GET', `/orders/${orderId}`, undefined, {}, 'sue');
        return r.body.state === 'CANCELLED' ? r.body : undefined;
      }, 30_000, 'the confirmed order CANCELLED');
      expect(order).toMatchObject({ state: 'CANCELLED', reason: 'COMMIT_FAILED', payment: { captured: true, reversed: 'refunded' } });
      expect(order.history.map((h) => h.event)).toEqual(expect.arrayContaining(['StockCommitFailed', 'PaymentReversed']));
      expect((await reservation(orderId)).status).toBe('expired');
      await stockIs(p, { available: 5, reserved: 0, committed: 0 });
      await cartStatus(cartId, 'ordered'); // it was ordered when the order was confirmed; a later cancel keeps it so
      expect((await ops(orderId, 'sale')).map((o) => o.outcome.status)).toEqual(['captured']);
      expect((await ops(orderId, 'refund')).map((o) => o.outcome.status)).toEqual(['refunded']);
    } finally {
      s.onMessage = undefined;
      process.kill(inventory, 'SIGCONT');
    }
  }, 60_000);

  it('every saga message duplicated and reordered, while it runs and again after → one order, one capture, stock right', async () => {
    await s.drained();
    const p = await product('3000.00', 10);
    const cartId = await cart(customer(1), [[p, 2]]);
    const since = Date.now();
    const inFlight: Promise<void>[] = [];
    // While it runs: every message on every saga topic is delivered again at once and once more later (0–500 ms), out of order.
    s.onMessage = (m) => {
      inFlight.push(s.republish([m]));
      inFlight.push(new Promise<void>((r) => setTimeout(r, Math.random() * 500)).then(() => s.republish([m])));
    };
    let orderId = '';
    try {
      ({ orderId } = await checkout(cartId));
      expect((await terminal(orderId)).state).toBe('CONFIRMED');
      await cartStatus(cartId, 'ordered');
    } finally {
      s.onMessage = undefined;
    }
    await Promise.all(inFlight);
    await s.drained();
    const settled = await terminal(orderId);

    // After it finished: every original message of this saga again, shuffled, twice.
    const saga = s.recorded.filter((m) => m.at >= since && belongs(m, { orderId, cartId, productId: p }));
    const types = new Set(saga.map((m) => m.type));
    for (const t of ['CheckoutRequested', 'OrderCreated', 'ReserveStock', 'StockReserved', 'CommitStock', 'OrderConfirmed']) expect(types).toContain(t);
    expect(types).not.toContain('StockCommitted'); // the confirmed order's sale is answered only when it fails
    await s.republish(shuffle([...saga, ...saga]));
    await s.drained();
    await new Promise((r) => setTimeout(r, 500)); // outbox relays publish whatever a copy might have caused
    await s.drained();

    expect(await s.db('orders').collection('orders').countDocuments({ cart_id: cartId })).toBe(1);
    const after = await terminal(orderId);
    expect(after).toMatchObject({ state: 'CONFIRMED', version: settled.version });
    expect(after.history).toEqual(settled.history);
    expect((await ops(orderId, 'sale')).map((o) => o.outcome.status)).toEqual(['captured']);
    expect(await ops(orderId, 'refund')).toHaveLength(0);
    await stockIs(p, { available: 8, reserved: 0, committed: 2 });
    expect((await reservation(orderId)).status).toBe('committed');
    expect((await s.http('carts', 'GET', `/carts/${cartId}`, undefined, {}, ownerOf(cartId))).body['status']).toBe('ordered');
    const outcomes = s.recorded.filter((m) => m.at >= since && m.payload['order_id'] === orderId && (m.type === 'OrderConfirmed' || m.type === 'OrderCancelled'));
    expect(outcomes.map((m) => m.type)).toEqual(['OrderConfirmed']);
    await ledgerOk();
  }, 90_000);
});

function belongs(m: Recorded, ids: { orderId: string; cartId: string; productId: string }): boolean {
  return m.payload['order_id'] === ids.orderId || m.payload['cart_id'] === ids.cartId || m.payload['product_id'] === ids.productId;
}

function shuffle<T>(xs: T[]): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}
