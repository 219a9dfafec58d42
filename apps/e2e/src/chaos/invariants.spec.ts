import {
  Acknowledgement,
  acknowledgedOf,
  checkSnapshot,
  CheckOptions,
  LedgerRow,
  OperationRow,
  OrderRow,
  ReservationRow,
  Snapshot,
  StockRow,
} from './invariants';
import type { AcceptedCheckout } from './storm';

/**
 * The chaos checker on planted violations, the way inventory's /ledger/check is tested: a small run
 * whose databases are consistent passes every invariant; each planted defect (a broken
 * implementation that used to pass) fails the invariant written for it.
 */

const PRODUCT = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const ZONE = 'MSK';
const RESTOCKED = 20;
const T0 = Date.UTC(2026, 0, 1);
const at = (s: number): Date => new Date(T0 + s * 1000);

/** How one order of the small run ended, with everything the databases hold for it. */
type Kind =
  | 'sold'
  | 'delivering'
  | 'returned'
  | 'cancelled-while-committing'
  | 'declined'
  | 'rejected'
  | 'deadline-after-capture-call';

interface World extends Snapshot {
  orders: OrderRow[];
  stock: StockRow[];
  ledger: LedgerRow[];
  reservations: ReservationRow[];
  payments: { _id: string; status: string }[];
  operations: OperationRow[];
  carts: Map<string, { status: string; checkout_id: string | null }>;
  deadLetters: { original: string; poison: boolean; group: string; code: string; reason: string }[];
}

interface Run {
  world: World;
  opts: CheckOptions & {
    acknowledged: Acknowledgement[];
    accepted: AcceptedCheckout[];
    poisoned: Map<string, number>;
    unexpectedExits: string[];
  };
}

const idOf = (n: number): string => n.toString(16).padStart(24, '0');

/** A consistent run: the given orders, their stock movements, payments, reservations and carts. */
function run(
  kinds: readonly Kind[] = [
    'sold',
    'delivering',
    'returned',
    'declined',
    'rejected',
    'deadline-after-capture-call',
    'cancelled-while-committing',
  ],
): Run {
  const w: World = {
    orders: [],
    stock: [],
    ledger: [],
    reservations: [],
    payments: [],
    operations: [],
    carts: new Map(),
    deadLetters: [],
  };
  const accepted: AcceptedCheckout[] = [];
  const c = { available: RESTOCKED, reserved: 0, committed: 0 };
  let entry = 0;
  const move = (kind: string, qty: number, order?: string): void => {
    w.ledger.push({
      _id: `e${++entry}`,
      product_id: PRODUCT,
      zone: ZONE,
      kind,
      qty,
      ...(order ? { order_id: order } : {}),
    });
  };
  move('restock', RESTOCKED);
  kinds.forEach((kind, i) => {
    const id = idOf(i + 1);
    const checkout = `checkout-${i + 1}`;
    const cart = `cart-${i + 1}`;
    const qty = 1 + (i % 2);
    const op = (key: string, name: string, status: string): void =>
      void w.operations.push({ _id: `${id}:${key}`, reference: id, op: name, outcome: { status } });
    const history: { to: string; event: string; at: Date }[] = [
      { to: 'AWAITING_PAYMENT', event: 'StockReserved', at: at(1) },
    ];
    let state = 'CANCELLED';
    let reason: string | null = null;
    let cartStatus = 'active';
    const reserve = (): void => {
      move('reserve', qty, id);
      c.available -= qty;
    };
    switch (kind) {
      case 'sold':
      case 'delivering':
      case 'returned':
        reserve();
        move('commit', qty, id);
        c.committed += qty;
        op('sale', 'sale', 'captured'); // authorized and captured in one call (ADR 0015 §11)
        history.push(
          { to: 'COMMITTING', event: 'PaymentCaptured', at: at(2) },
          { to: 'CONFIRMED', event: 'StockCommitted', at: at(3) },
        );
        cartStatus = 'ordered';
        if (kind === 'returned') {
          move('return', qty, id);
          c.committed -= qty;
          c.available += qty;
          op('refund', 'refund', 'refunded');
          history.push(
            { to: 'CANCELLING', event: 'CancelRequested', at: at(4) },
            { to: 'CANCELLED', event: 'StockReturned', at: at(5) },
          );
          reason = 'CANCELLED_BY_USER';
          w.payments.push({ _id: id, status: 'refunded' });
          w.reservations.push({ _id: id, status: 'returned' });
        } else {
          state = kind === 'delivering' ? 'DELIVERING' : 'CONFIRMED';
          if (kind === 'delivering') history.push({ to: 'DELIVERING', event: 'DeliveryStarted', at: at(4) });
          w.payments.push({ _id: id, status: 'captured' });
          w.reservations.push({ _id: id, status: 'committed' });
        }
        break;
      case 'declined':
        reserve();
        move('release', qty, id);
        c.available += qty;
        op('sale', 'sale', 'declined');
        history.push({ to: 'CANCELLED', event: 'PaymentDeclined', at: at(2) });
        reason = 'PAYMENT_DECLINED';
        w.payments.push({ _id: id, status: 'declined' });
        w.reservations.push({ _id: id, status: 'released', release_reason: 'compensation' });
        break;
      case 'rejected':
        history.splice(0, 1, { to: 'CANCELLED', event: 'StockRejected', at: at(1) });
        reason = 'STOCK_REJECTED';
        w.reservations.push({ _id: id, status: 'rejected' });
        break;
      case 'cancelled-while-committing':
        // the customer cancelled while the commit was in flight: sold by inventory and undone at once —
        // never CONFIRMED (so its cart is active again), yet committed and returned in the ledger
        reserve();
        move('commit', qty, id);
        move('return', qty, id);
        c.available += qty;
        op('authorize', 'authorize', 'authorized');
        op('capture', 'capture', 'captured');
        op('refund', 'refund', 'refunded');
        history.push(
          { to: 'COMMITTING', event: 'PaymentCaptured', at: at(2) },
          { to: 'CANCELLING', event: 'StockCommitted', at: at(3) },
          { to: 'CANCELLED', event: 'StockReturned', at: at(4) },
        );
        reason = 'CANCELLED_BY_USER';
        w.payments.push({ _id: id, status: 'refunded' });
        w.reservations.push({ _id: id, status: 'returned' });
        break;
      case 'deadline-after-capture-call':
        // the payment deadline passed during CAPTURE: the refund was contradicted (never captured), a void of round 1 closed it
        reserve();
        move('release', qty, id);
        c.available += qty;
        op('authorize', 'authorize', 'authorized');
        op('refund', 'refund', 'not_captured');
        op('void:r1', 'void', 'voided');
        history.push(
          { to: 'CANCELLING', event: 'DeadlinePassed', at: at(20) },
          { to: 'CANCELLED', event: 'PaymentReversed', at: at(21) },
        );
        reason = 'PAYMENT_DEADLINE_EXCEEDED';
        w.payments.push({ _id: id, status: 'voided' });
        w.reservations.push({ _id: id, status: 'released', release_reason: 'compensation' });
        break;
    }
    w.orders.push({
      _id: id,
      checkout_id: checkout,
      cart_id: cart,
      zone: ZONE,
      items: [{ product_id: PRODUCT, qty }],
      saga: { state, reason, history },
    });
    w.carts.set(cart, { status: cartStatus, checkout_id: cartStatus === 'ordered' ? checkout : null });
    accepted.push({
      checkout_id: checkout,
      cart_id: cart,
      user_id: 'u',
      zone: ZONE,
      lines: [{ product_id: PRODUCT, qty }],
      accepted_at: T0,
    });
  });
  w.stock.push({ product_id: PRODUCT, zone: ZONE, ...c, received: RESTOCKED, adjusted: 0, reservations: [] });
  w.carts.set('cart-probe', { status: 'active', checkout_id: null });
  w.deadLetters.push({
    original: 'commands',
    poison: true,
    group: 'inventory',
    code: 'MESSAGING.INVALID_ENVELOPE',
    reason: 'not json',
  });
  return {
    world: w,
    opts: {
      accepted,
      poisoned: new Map([['commands', 1]]),
      terminalBudgetMs: 60_000,
      unexpectedExits: [],
      acknowledged: acknowledgementsOf(w),
    },
  };
}

const TOPICS = { orders: 'orders', events: 'events' };

/**
 * What a consistent run told its clients and consumers: the events each order's life published
 * (one envelope each), the after-order actions answered 2xx — through the run's own acknowledgedOf.
 */
function acknowledgementsOf(w: World): Acknowledgement[] {
  const seen: { topic: string; type: string; value: string; payload: Record<string, unknown> }[] = [];
  const publish = (topic: string, type: string, order: string): void =>
    void seen.push({
      topic,
      type,
      value: JSON.stringify({ id: `${order}-${type}` }),
      payload: { order_id: order },
    });
  const answers: { order_id: string; action: 'cancel' | 'delivery' | 'completion'; status: number }[] = [];
  for (const o of w.orders) {
    publish(TOPICS.orders, 'OrderCreated', o._id);
    const passed = (state: string): boolean => o.saga.history.some((h) => h.to === state);
    if (passed('CONFIRMED')) publish(TOPICS.orders, 'OrderConfirmed', o._id);
    if (passed('DELIVERING')) {
      answers.push({ order_id: o._id, action: 'delivery', status: 200 });
      publish(TOPICS.orders, 'OrderDeliveryStarted', o._id);
    }
    if (o.saga.state === 'CANCELLED') publish(TOPICS.orders, 'OrderCancelled', o._id);
    if (o.saga.reason === 'CANCELLED_BY_USER')
      answers.push({ order_id: o._id, action: 'cancel', status: 202 });
  }
  const announce: Record<string, string> = {
    reserve: 'StockReserved',
    commit: 'StockCommitted',
    return: 'StockReturned',
  };
  for (const e of w.ledger)
    if (e.order_id && announce[e.kind]) publish(TOPICS.events, announce[e.kind] as string, e.order_id);
  return acknowledgedOf(answers, seen, TOPICS);
}

const acknowledge = (r: Run, ack: Acknowledgement): void =>
  void (r.opts.acknowledged as Acknowledgement[]).push(ack);

const failing = (r: Run): string[] =>
  checkSnapshot(r.world, r.opts)
    .results.filter((i) => !i.ok)
    .map((i) => i.name);
const orderOf = (r: Run, n: number): OrderRow => r.world.orders[n - 1] as OrderRow;
const stockRow = (r: Run): StockRow => r.world.stock[0] as StockRow;
const reservationOf = (r: Run, n: number): ReservationRow =>
  r.world.reservations.find((x) => x._id === idOf(n)) as ReservationRow;
const paymentOf = (r: Run, n: number): { status: string } =>
  r.world.payments.find((x) => x._id === idOf(n)) as { status: string };

describe('chaos invariants (checkSnapshot)', () => {
  it('pass on a consistent run, with both idempotency-key styles of reversals and a cancel during the commit', () => {
    const r = run();
    const checked = checkSnapshot(r.world, r.opts);
    expect(checked.results.filter((i) => !i.ok)).toEqual([]);
    expect(checked.results.length).toBe(19);
    expect(r.opts.acknowledged.length).toBeGreaterThan(20);
    expect(checked.outcomes).toEqual({
      CONFIRMED: 1,
      DELIVERING: 1,
      'CANCELLED CANCELLED_BY_USER': 2,
      'CANCELLED PAYMENT_DECLINED': 1,
      'CANCELLED STOCK_REJECTED': 1,
      'CANCELLED PAYMENT_DEADLINE_EXCEEDED': 1,
    });
    expect(checked.reservations).toEqual({
      committed: 2,
      returned: 2,
      'released compensation': 2,
      rejected: 1,
    });
  });

  // Each case: a broken implementation's footprint in the databases → the invariant that must fail.
  const planted: [string, (r: Run) => void, string][] = [
    [
      'an accepted checkout without an order',
      (r) =>
        void r.opts.accepted.push({
          ...(r.opts.accepted[0] as AcceptedCheckout),
          checkout_id: 'checkout-lost',
        }),
      'no lost checkout (accepted → an order)',
    ],
    [
      'two orders for one checkout',
      (r) => void r.world.orders.push({ ...orderOf(r, 4), _id: idOf(99) }),
      'one order per checkout',
    ],
    [
      'an abandoned checkout (never seen accepted) stuck in CANCELLING with a live authorization',
      (r) => {
        r.world.orders.push({
          _id: idOf(50),
          checkout_id: 'checkout-abandoned',
          cart_id: 'cart-abandoned',
          zone: ZONE,
          items: [{ product_id: PRODUCT, qty: 1 }],
          saga: { state: 'CANCELLING', reason: 'PAYMENT_DEADLINE_EXCEEDED', history: [] },
        });
        r.world.payments.push({ _id: idOf(50), status: 'authorized' });
      },
      'every order in the database terminal',
    ],
    [
      'an order terminal after its budget',
      (r) => void ((r.opts.accepted[0] as { accepted_at: number }).accepted_at = T0 - 120_000),
      'terminal within budget (60 s)',
    ],
    [
      'a unit appearing from nowhere',
      (r) => void (stockRow(r).available += 1),
      'stock balanced (received − adjustments = available + reserved + committed ≥ 0)',
    ],
    [
      'a unit sold with no order behind it (counters and ledger agree)',
      (r) => {
        stockRow(r).available -= 1;
        stockRow(r).committed += 1;
        r.world.ledger.push(
          {
            _id: 'stray-reserve',
            product_id: PRODUCT,
            zone: ZONE,
            kind: 'reserve',
            qty: 1,
            order_id: idOf(77),
          },
          {
            _id: 'stray-commit',
            product_id: PRODUCT,
            zone: ZONE,
            kind: 'commit',
            qty: 1,
            order_id: idOf(77),
          },
        );
      },
      'committed = units of sold orders (0 oversold)',
    ],
    [
      'a hold left behind (ReleaseStock lost)',
      (r) => {
        const s = stockRow(r);
        s.available -= 1;
        s.reserved += 1;
        s.reservations.push({ order_id: idOf(4), qty: 1 });
        r.world.ledger.push({
          _id: 'left',
          product_id: PRODUCT,
          zone: ZONE,
          kind: 'reserve',
          qty: 1,
          order_id: idOf(4),
        });
      },
      'nothing left held after the saga ended',
    ],
    [
      'a movement missing from the ledger',
      (r) =>
        void r.world.ledger.splice(
          r.world.ledger.findIndex((e) => e.kind === 'release'),
          1,
        ),
      'ledger balanced (replay = counters)',
    ],
    [
      'a movement of a kind the replay does not know',
      (r) =>
        void r.world.ledger.push({ _id: 'odd', product_id: PRODUCT, zone: ZONE, kind: 'teleport', qty: 0 }),
      'ledger balanced (replay = counters)',
    ],
    [
      'an unflushed entry counted twice (it is also in the ledger collection)',
      (r) => void (stockRow(r)._ledger = [{ ...(r.world.ledger[1] as LedgerRow), _id: 'dup' }]),
      'ledger balanced (replay = counters)',
    ],
    [
      'a sold order whose reservation was released',
      (r) => void Object.assign(reservationOf(r, 1), { status: 'released', release_reason: 'compensation' }),
      'every reservation ends as its order (sold → committed, sold then cancelled → returned, cancelled unsold → released by the saga)',
    ],
    [
      'a cancel during the commit whose sale was never undone (reservation still committed)',
      (r) => void (reservationOf(r, 7).status = 'committed'),
      'every reservation ends as its order (sold → committed, sold then cancelled → returned, cancelled unsold → released by the saga)',
    ],
    [
      'a cancel after confirmation whose units never came back (reservation still committed)',
      (r) => void (reservationOf(r, 3).status = 'committed'),
      'every reservation ends as its order (sold → committed, sold then cancelled → returned, cancelled unsold → released by the saga)',
    ],
    [
      'ReleaseStock lost, the hold ended by the clock instead',
      (r) => {
        Object.assign(reservationOf(r, 4), { status: 'expired', release_reason: 'expired' });
        (r.world.ledger.find((e) => e.kind === 'release' && e.order_id === idOf(4)) as LedgerRow).kind =
          'expire';
      },
      'every reservation ends as its order (sold → committed, sold then cancelled → returned, cancelled unsold → released by the saga)',
    ],
    [
      'ReleaseStock lost, the hold ended by the clock instead (the expiry itself)',
      (r) => {
        Object.assign(reservationOf(r, 4), { status: 'expired', release_reason: 'expired' });
        (r.world.ledger.find((e) => e.kind === 'release' && e.order_id === idOf(4)) as LedgerRow).kind =
          'expire';
      },
      'no hold ended by the clock (production hold: every hold released by the saga)',
    ],
    [
      'a cancelled order whose reservation was never released (no ReleaseStock reached inventory)',
      (r) => void r.world.reservations.splice(r.world.reservations.indexOf(reservationOf(r, 6)), 1),
      'every reservation ends as its order (sold → committed, sold then cancelled → returned, cancelled unsold → released by the saga)',
    ],
    [
      'units of a cancelled order returned twice (and counted as available again)',
      (r) => {
        const ret = r.world.ledger.find((e) => e.kind === 'return') as LedgerRow;
        r.world.ledger.push({ ...ret, _id: 'return-again' });
        stockRow(r).committed -= ret.qty;
        stockRow(r).available += ret.qty;
      },
      'every order sold at most once and returned at most once (ledger commit/return units per order)',
    ],
    [
      'no cancel after confirmation in the run',
      (r) => {
        const fresh = run(['sold', 'delivering', 'declined', 'rejected']);
        r.world = fresh.world;
        r.opts = fresh.opts;
      },
      'cancel after confirmation exercised (a CANCELLED order that was CONFIRMED, a ledger return)',
    ],
    [
      'a cancel refused during delivery that still refunded the money',
      (r) => {
        paymentOf(r, 2).status = 'refunded';
        r.world.operations.push({
          _id: `${idOf(2)}:refund`,
          reference: idOf(2),
          op: 'refund',
          outcome: { status: 'refunded' },
        });
      },
      'PSP: sold orders captured and not reversed; cancelled ones neither authorized-and-open nor captured-and-kept',
    ],
    [
      'a refund recorded on a sold order whose payment still reads captured',
      (r) =>
        void r.world.operations.push({
          _id: `${idOf(1)}:refund`,
          reference: idOf(1),
          op: 'refund',
          outcome: { status: 'refunded' },
        }),
      'PSP: sold orders captured and not reversed; cancelled ones neither authorized-and-open nor captured-and-kept',
    ],
    [
      'a sold order never captured',
      (r) => void (paymentOf(r, 1).status = 'authorized'),
      'PSP: sold orders captured and not reversed; cancelled ones neither authorized-and-open nor captured-and-kept',
    ],
    [
      'a cancelled order whose authorization was never voided',
      (r) => void (paymentOf(r, 6).status = 'authorized'),
      'PSP: sold orders captured and not reversed; cancelled ones neither authorized-and-open nor captured-and-kept',
    ],
    [
      'a cancelled order captured and never refunded',
      (r) => void (paymentOf(r, 3).status = 'captured'),
      'PSP: sold orders captured and not reversed; cancelled ones neither authorized-and-open nor captured-and-kept',
    ],
    [
      'a payment with no order',
      (r) => void r.world.payments.push({ _id: idOf(60), status: 'captured' }),
      'PSP: sold orders captured and not reversed; cancelled ones neither authorized-and-open nor captured-and-kept',
    ],
    [
      'a double refund (a second key)',
      (r) =>
        void r.world.operations.push({
          _id: `${idOf(3)}:refund:r1`,
          reference: idOf(3),
          op: 'refund',
          outcome: { status: 'refunded' },
        }),
      'PSP: at most one effective capture, refund and void per order',
    ],
    [
      'a double capture (a per-call nonce in the key)',
      (r) =>
        void r.world.operations.push({
          _id: `${idOf(1)}:capture:n2`,
          reference: idOf(1),
          op: 'capture',
          outcome: { status: 'captured' },
        }),
      'PSP: at most one effective capture, refund and void per order',
    ],
    [
      'a capture besides the sale (an order paid twice over two payment shapes)',
      (r) =>
        void r.world.operations.push({
          _id: `${idOf(1)}:capture`,
          reference: idOf(1),
          op: 'capture',
          outcome: { status: 'captured' },
        }),
      'PSP: at most one effective capture, refund and void per order',
    ],
    [
      'a double sale (a per-call nonce in the key)',
      (r) =>
        void r.world.operations.push({
          _id: `${idOf(1)}:sale:n2`,
          reference: idOf(1),
          op: 'sale',
          outcome: { status: 'captured' },
        }),
      'PSP: at most one effective capture, refund and void per order',
    ],
    [
      'a double void',
      (r) =>
        void r.world.operations.push({
          _id: `${idOf(6)}:void:r2`,
          reference: idOf(6),
          op: 'void',
          outcome: { status: 'voided' },
        }),
      'PSP: at most one effective capture, refund and void per order',
    ],
    [
      'a confirmed order whose cart is active again',
      (r) => void r.world.carts.set('cart-1', { status: 'active', checkout_id: null }),
      'every cart consistent with its order (none left checking out)',
    ],
    [
      'a cart left checking out whose checkout never became an order',
      (r) => void r.world.carts.set('cart-stuck', { status: 'checking_out', checkout_id: 'checkout-never' }),
      'every cart consistent with its order (none left checking out)',
    ],
    [
      'a dead letter nobody injected',
      (r) =>
        void r.world.deadLetters.push({
          original: 'events',
          poison: false,
          group: 'orders',
          code: 'X',
          reason: 'boom',
        }),
      'DLQ: only the injected poison, all of it',
    ],
    [
      'injected poison that never reached its DLQ',
      (r) => void r.opts.poisoned.set('checkout', 2),
      'DLQ: only the injected poison, all of it',
    ],
    // what only a partition causes: a write acknowledged by a primary cut off from its majority and
    // rolled back when it rejoined; an effect applied again by an instance that lost its partitions
    [
      'a delivery answered 200 and rolled back (the order never shows DELIVERING)',
      (r) => acknowledge(r, { order_id: idOf(1), source: 'delivery 200', requires: 'passed:DELIVERING' }),
      'no acknowledged write rolled back (every 2xx answer and published event still in the databases)',
    ],
    [
      'an OrderConfirmed published for an order whose confirmation was rolled back (it ended declined)',
      (r) =>
        acknowledge(r, {
          order_id: idOf(4),
          source: 'event OrderConfirmed',
          requires: 'passed:CONFIRMED',
          event_type: 'OrderConfirmed',
          event_id: 'e-confirmed',
        }),
      'no acknowledged write rolled back (every 2xx answer and published event still in the databases)',
    ],
    [
      'a StockCommitted published whose ledger commit was rolled back',
      (r) =>
        acknowledge(r, {
          order_id: idOf(4),
          source: 'event StockCommitted',
          requires: 'ledger:commit',
          event_type: 'StockCommitted',
          event_id: 'e-committed',
        }),
      'no acknowledged write rolled back (every 2xx answer and published event still in the databases)',
    ],
    [
      'a cancel answered 202 whose order was never cancelled',
      (r) => acknowledge(r, { order_id: idOf(1), source: 'cancel 202', requires: 'ended:CANCELLED' }),
      'no acknowledged write rolled back (every 2xx answer and published event still in the databases)',
    ],
    [
      'an OrderConfirmed sent again under a new envelope id (a second transition by an instance that lost its partitions)',
      (r) =>
        acknowledge(r, {
          order_id: idOf(1),
          source: 'event OrderConfirmed',
          requires: 'passed:CONFIRMED',
          event_type: 'OrderConfirmed',
          event_id: 'e-confirmed-again',
        }),
      'no duplicate effect (one envelope per order event, each line reserved once, one authorization per order)',
    ],
    [
      'a ReserveStock applied twice after a rebalance (and released twice: counters and ledger agree)',
      (r) => {
        const qty = orderOf(r, 4).items[0]?.qty ?? 1;
        r.world.ledger.push(
          { _id: 'again-reserve', product_id: PRODUCT, zone: ZONE, kind: 'reserve', qty, order_id: idOf(4) },
          { _id: 'again-release', product_id: PRODUCT, zone: ZONE, kind: 'release', qty, order_id: idOf(4) },
        );
      },
      'no duplicate effect (one envelope per order event, each line reserved once, one authorization per order)',
    ],
    [
      'two effective authorizations for one order',
      (r) =>
        void r.world.operations.push({
          _id: `${idOf(1)}:authorize:n2`,
          reference: idOf(1),
          op: 'authorize',
          outcome: { status: 'authorized' },
        }),
      'no duplicate effect (one envelope per order event, each line reserved once, one authorization per order)',
    ],
    [
      'a service that exits on every broker kill',
      (r) => void r.opts.unexpectedExits.push('orders-2 exited by itself (code 1, signal null)'),
      'no service process exited by itself',
    ],
  ];

  it.each(planted)('fail on %s', (_what, plant, invariant) => {
    const r = run();
    expect(failing(r)).toEqual([]);
    plant(r);
    expect(failing(r)).toContain(invariant);
  });

  it('tests every invariant with a planted violation', () => {
    const r = run();
    const names = checkSnapshot(r.world, r.opts).results.map((i) => i.name);
    expect([...new Set(planted.map(([, , name]) => name))].sort()).toEqual([...names].sort());
  });
});
