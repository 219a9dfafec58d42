import { Client as CassandraClient } from 'cassandra-driver';
import { Kafka } from 'kafkajs';
import { Db } from 'mongodb';
import { dlqTopicOf } from '@mw/contracts';
import type { AcceptedCheckout } from './storm';

/** One invariant, checked from the databases and topics themselves (never from a service's answer). */
export interface InvariantResult {
  readonly name: string;
  readonly ok: boolean;
  /** The measured figure, e.g. "0 units oversold over 66 product/zone rows". */
  readonly value: string;
  /** The first offending rows (at most 10). */
  readonly details: readonly unknown[];
}

/** inventory `stock`: one document per (product, zone). */
export interface StockRow {
  product_id: string;
  zone: string;
  available: number;
  reserved: number;
  committed: number;
  received: number;
  adjusted: number;
  reservations: { order_id: string; qty: number }[];
  _ledger?: LedgerRow[];
}

/** inventory `ledger` (and entries a stock document has not flushed yet): one movement. */
export interface LedgerRow {
  _id: string;
  product_id: string;
  zone: string;
  kind: string;
  qty: number;
  order_id?: string;
}

/** inventory `reservations`: one document per order, its status the order-level answer. */
export interface ReservationRow {
  _id: string;
  status: string;
  release_reason?: string;
  tombstone?: boolean;
  pending?: string;
}

/** orders `orders`. */
export interface OrderRow {
  _id: string;
  checkout_id: string;
  cart_id: string;
  zone: string;
  items: { product_id: string; qty: number }[];
  /** `event`: the input of each transition (a StockCommitted one means inventory sold the order's units). */
  saga: { state: string; reason: string | null; history: { to: string; event: string; at: Date }[] };
}

/** The PSP simulator's `payment_sim_payments`: the current state of one payment reference (an order). */
export interface PaymentRow {
  _id: string;
  status: string;
}

/** The PSP simulator's `payment_sim_operations`: one document per idempotency key. */
export interface OperationRow {
  _id: string;
  reference: string;
  op: string;
  outcome: { status: string };
}

/** carts' Cassandra row of one cart. */
export interface CartRow {
  status: string;
  checkout_id: string | null;
}

export interface DeadLetter {
  readonly original: string;
  readonly poison: boolean;
  readonly group: string;
  readonly code: string;
  readonly reason: string;
}

/** Everything the invariants read, taken from the run's databases and topics once the system settled. */
export interface Snapshot {
  /** Every order in the run's database, whether or not the client saw its checkout accepted. */
  readonly orders: readonly OrderRow[];
  readonly stock: readonly StockRow[];
  /** The `ledger` collection (flushed entries); unflushed ones are read from `stock._ledger`. */
  readonly ledger: readonly LedgerRow[];
  readonly reservations: readonly ReservationRow[];
  readonly payments: readonly PaymentRow[];
  readonly operations: readonly OperationRow[];
  /** Every cart row, by cart id. */
  readonly carts: ReadonlyMap<string, CartRow>;
  readonly deadLetters: readonly DeadLetter[];
}

/**
 * Something another party was told happened to an order — a 2xx answer the storm got, or an event
 * on a topic — and what the databases must therefore show once the run settled. A write the
 * client saw acknowledged and the database later rolled back (a primary cut off that took writes
 * without a majority) shows as an acknowledgement with nothing behind it.
 */
export interface Acknowledgement {
  readonly order_id: string;
  /** Who was told: `delivery 200`, `event OrderConfirmed`… */
  readonly source: string;
  /**
   * What the order must show: `passed:<STATE>` (its saga went through that state), `ended:<STATE>`
   * (it ended there), `ledger:<kind>` (inventory recorded that movement for it), `exists`.
   */
  readonly requires: `passed:${string}` | `ended:${string}` | `ledger:${string}` | 'exists';
  /** The envelope id of an event: one order's same event under two ids is an effect applied twice. */
  readonly event_id?: string;
  readonly event_type?: string;
}

/** One message the run's recorder saw on a saga topic (the stack's `Recorded`, the fields read here). */
export interface SeenMessage {
  readonly topic: string;
  readonly type: string;
  readonly value: string;
  readonly payload: Record<string, unknown>;
}

/** What each event, once published, says happened: the orders topic's transitions and inventory's movements. */
const EVENT_REQUIRES: Readonly<Record<string, Acknowledgement['requires']>> = {
  OrderCreated: 'exists',
  OrderConfirmed: 'passed:CONFIRMED',
  OrderDeliveryStarted: 'passed:DELIVERING',
  OrderCompleted: 'passed:COMPLETED',
  OrderCancelled: 'ended:CANCELLED',
  StockReserved: 'ledger:reserve',
  StockCommitted: 'ledger:commit',
  StockReturned: 'ledger:return',
};
/** Events an order announces once in its life (the saga's transitions): two envelope ids = a duplicate effect. */
const ONCE_PER_ORDER = new Set([
  'OrderCreated',
  'OrderConfirmed',
  'OrderDeliveryStarted',
  'OrderCompleted',
  'OrderCancelled',
]);

/** The storm's 2xx answers and every event the recorder saw on the orders and inventory events topics, as acknowledgements. */
export function acknowledgedOf(
  answers: readonly {
    readonly order_id: string;
    readonly action: 'cancel' | 'delivery' | 'completion';
    readonly status: number;
  }[],
  recorded: readonly SeenMessage[],
  topics: { readonly orders: string; readonly events: string },
): Acknowledgement[] {
  const acks: Acknowledgement[] = answers.map((a) => ({
    order_id: a.order_id,
    source: `${a.action} ${a.status}`,
    requires:
      a.action === 'cancel'
        ? 'ended:CANCELLED'
        : a.action === 'delivery'
          ? 'passed:DELIVERING'
          : 'passed:COMPLETED',
  }));
  for (const m of recorded) {
    const requires = EVENT_REQUIRES[m.type];
    const orderId = m.payload['order_id'];
    if (!requires || typeof orderId !== 'string' || (m.topic !== topics.orders && m.topic !== topics.events))
      continue;
    let id: string | undefined;
    try {
      id = String((JSON.parse(m.value) as { id?: unknown }).id);
    } catch {
      id = undefined;
    }
    acks.push({
      order_id: orderId,
      source: `event ${m.type}`,
      requires,
      event_type: m.type,
      ...(id ? { event_id: id } : {}),
    });
  }
  return acks;
}

export interface CheckOptions {
  readonly accepted: readonly AcceptedCheckout[];
  /** Poison messages the run injected, per topic: their DLQ entries are the explained ones. */
  readonly poisoned: ReadonlyMap<string, number>;
  /** Longest a checkout may take from acceptance to a terminal order (saga deadlines + longest outage). */
  readonly terminalBudgetMs: number;
  /** Service processes that died without the fault plan killing them. */
  readonly unexpectedExits: readonly string[];
  /** What clients and consumers were told (./acknowledgedOf); absent: the two rules on it pass vacuously. */
  readonly acknowledged?: readonly Acknowledgement[];
}

export interface Checked {
  readonly results: InvariantResult[];
  /** Orders by final state (and cancel reason). */
  readonly outcomes: Record<string, number>;
  /** How the reservations ended, by status (and release reason): expiries counted apart from releases by the saga. */
  readonly reservations: Record<string, number>;
  readonly terminalMs: number[];
}

/** The checkout saga ended: sold (and maybe handed to delivery since) or cancelled. */
const TERMINAL = new Set(['CONFIRMED', 'DELIVERING', 'COMPLETED', 'CANCELLED']);
/** Sold right now: its units are committed in inventory and its money captured (a cancel after confirmation returned both). */
const SOLD = new Set(['CONFIRMED', 'DELIVERING', 'COMPLETED']);
/** Confirmed at some point: its cart was ordered for good, even if the customer cancelled the order afterwards. */
const everConfirmed = (o: OrderRow): boolean => o.saga.history.some((h) => h.to === 'CONFIRMED');
/**
 * Sold by inventory at some point: confirmed and its sale not failed (the sale rides with the
 * confirmation and is answered only when it fails, ADR 0015 §3), or — an order of the earlier saga —
 * cancelled by its customer while the commit was in flight (COMMITTING → CANCELLING on
 * StockCommitted: the sale happened and is undone, never CONFIRMED).
 */
const everSold = (o: OrderRow): boolean =>
  o.saga.history.some((h) => h.event === 'StockCommitted') ||
  (o.saga.history.some((h) => h.to === 'CONFIRMED') && !o.saga.history.some((h) => h.event === 'StockCommitFailed'));
/**
 * The PSP operations that move money or close an authorization: the effect each has (a sale is a
 * capture too: it authorizes and captures in one call) and the outcome that says it happened.
 */
const EFFECTIVE: Readonly<Record<string, { readonly effect: 'capture' | 'refund' | 'void'; readonly when: string }>> = {
  capture: { effect: 'capture', when: 'captured' },
  sale: { effect: 'capture', when: 'captured' },
  refund: { effect: 'refund', when: 'refunded' },
  void: { effect: 'void', when: 'voided' },
};
/** The operations that open an authorization, with the outcome that says they did. */
const AUTHORIZING: Readonly<Record<string, string>> = { authorize: 'authorized', sale: 'captured' };
/** A cancelled order's payment at the PSP: never authorized, declined, or reversed — never open or kept. */
const CLOSED_PAYMENT = new Set(['declined', 'voided', 'refunded']);
const key = (productId: string, zone: string): string => `${productId.toLowerCase()}:${zone}`;
const first = <T>(rows: readonly T[]): T[] => rows.slice(0, 10);
const add = (m: Map<string, number>, k: string, n: number): void => void m.set(k, (m.get(k) ?? 0) + n);

const ORDER_PROJECTION = {
  checkout_id: 1,
  cart_id: 1,
  zone: 1,
  items: 1,
  'saga.state': 1,
  'saga.reason': 1,
  'saga.history': 1,
} as const;

/**
 * Whether the run settled: every accepted checkout has an order and every order in the database
 * (also those of checkouts whose answer the client lost) is terminal.
 */
export async function allOrdersTerminal(orders: Db, accepted: readonly AcceptedCheckout[]): Promise<boolean> {
  const rows = await orders
    .collection<OrderRow>('orders')
    .find({}, { projection: { checkout_id: 1, 'saga.state': 1 } })
    .toArray();
  const seen = new Set(rows.map((r) => r.checkout_id));
  return accepted.every((a) => seen.has(a.checkout_id)) && rows.every((r) => TERMINAL.has(r.saga.state));
}

export interface GatherInput {
  readonly inventory: Db;
  readonly orders: Db;
  readonly cassandra: CassandraClient;
  readonly cartsKeyspace: string;
  readonly kafka: Kafka;
  readonly topics: readonly string[];
}

export type CheckInput = GatherInput & CheckOptions;

/** Reads the run's databases and dead-letter topics, then checks every invariant on what it read. */
export async function checkAll(input: CheckInput): Promise<Checked> {
  return checkSnapshot(await gather(input), input);
}

/** Everything `checkSnapshot` reads, from the run's own databases, keyspace and topics. */
export async function gather(input: GatherInput): Promise<Snapshot> {
  const inventory = input.inventory;
  const orders = input.orders;
  const carts = new Map<string, CartRow>();
  let pageState: string | undefined;
  do {
    const page = await input.cassandra.execute(
      `SELECT cart_id, status, checkout FROM ${input.cartsKeyspace}.carts`,
      [],
      { prepare: true, fetchSize: 1000, ...(pageState ? { pageState } : {}) },
    );
    for (const row of page.rows) {
      const checkout = row.get('checkout')
        ? (JSON.parse(row.get('checkout') as string) as { checkout_id?: string })
        : null;
      carts.set(String(row.get('cart_id')), {
        status: String(row.get('status')),
        checkout_id: checkout?.checkout_id ?? null,
      });
    }
    pageState = page.pageState ?? undefined;
  } while (pageState);
  return {
    orders: await orders.collection<OrderRow>('orders').find({}, { projection: ORDER_PROJECTION }).toArray(),
    stock: await inventory.collection<StockRow>('stock').find({}).toArray(),
    ledger: await inventory
      .collection<LedgerRow>('ledger')
      .find({}, { projection: { product_id: 1, zone: 1, kind: 1, qty: 1, order_id: 1 } })
      .toArray(),
    reservations: await inventory
      .collection<ReservationRow>('reservations')
      .find({}, { projection: { status: 1, release_reason: 1, tombstone: 1, pending: 1 } })
      .toArray(),
    payments: await orders
      .collection<PaymentRow>('payment_sim_payments')
      .find({}, { projection: { status: 1 } })
      .toArray(),
    operations: await orders
      .collection<OperationRow>('payment_sim_operations')
      .find({}, { projection: { reference: 1, op: 1, outcome: 1 } })
      .toArray(),
    carts,
    deadLetters: await deadLetters(input.kafka, input.topics),
  };
}

/** Every invariant of a chaos run, on a snapshot of its databases (pure: unit-tested with planted violations). */
export function checkSnapshot(s: Snapshot, opts: CheckOptions): Checked {
  const results: InvariantResult[] = [];
  const outcomes: Record<string, number> = {};
  const terminalMs: number[] = [];
  const byCheckout = new Map<string, OrderRow[]>();
  for (const o of s.orders) byCheckout.set(o.checkout_id, [...(byCheckout.get(o.checkout_id) ?? []), o]);
  const acceptedIds = new Set(opts.accepted.map((a) => a.checkout_id));
  const terminal = s.orders.filter((o) => TERMINAL.has(o.saga.state));

  // 1. every accepted checkout has exactly one order; every order in the database terminal, an accepted one within its budget
  const lost: unknown[] = [];
  const late: unknown[] = [];
  for (const a of opts.accepted) {
    const o = byCheckout.get(a.checkout_id)?.[0];
    if (!o) {
      lost.push({ checkout_id: a.checkout_id, cart_id: a.cart_id });
      continue;
    }
    const end = o.saga.history.filter((h) => TERMINAL.has(h.to)).map((h) => new Date(h.at).getTime())[0];
    if (end === undefined) continue;
    const took = end - a.accepted_at;
    terminalMs.push(took);
    if (took > opts.terminalBudgetMs) late.push({ order: o._id, took_ms: took });
  }
  const doubled = [...byCheckout]
    .filter(([, rows]) => rows.length > 1)
    .map(([checkout_id, rows]) => ({ checkout_id, orders: rows.map((r) => r._id) }));
  const open = s.orders
    .filter((o) => !TERMINAL.has(o.saga.state))
    .map((o) => ({ order: o._id, state: o.saga.state, accepted: acceptedIds.has(o.checkout_id) }));
  for (const o of s.orders) {
    const outcome = o.saga.state === 'CANCELLED' ? `CANCELLED ${o.saga.reason ?? ''}`.trim() : o.saga.state;
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  }
  const unseen = s.orders.filter((o) => !acceptedIds.has(o.checkout_id)).length;
  results.push({
    name: 'no lost checkout (accepted → an order)',
    ok: lost.length === 0,
    value: `${lost.length} lost of ${opts.accepted.length}`,
    details: first(lost),
  });
  results.push({
    name: 'one order per checkout',
    ok: doubled.length === 0,
    value: `${doubled.length} checkouts with several orders`,
    details: first(doubled),
  });
  results.push({
    name: 'every order in the database terminal',
    ok: open.length === 0,
    value: `${open.length} not terminal of ${s.orders.length} (${unseen} of checkouts the client never saw accepted)`,
    details: first(open),
  });
  results.push({
    name: `terminal within budget (${Math.round(opts.terminalBudgetMs / 1000)} s)`,
    ok: late.length === 0,
    value: `${late.length} late; max ${Math.round(Math.max(0, ...terminalMs) / 100) / 10} s`,
    details: first(late),
  });

  results.push(...stockInvariants(s, terminal));
  results.push(...reservationInvariants(s, terminal));
  results.push(...paymentInvariants(s));
  results.push(cartInvariant(s, byCheckout));
  results.push(acknowledgedInvariant(s, opts.acknowledged ?? []));
  results.push(duplicateEffectInvariant(s, opts.acknowledged ?? []));

  // dead letters: only the poison the run injected
  const unexplained = s.deadLetters.filter((d) => !d.poison);
  const poisonSeen = new Map<string, number>();
  for (const d of s.deadLetters.filter((x) => x.poison)) add(poisonSeen, d.original, 1);
  const missingPoison = [...opts.poisoned]
    .filter(([t, n]) => (poisonSeen.get(t) ?? 0) < n)
    .map(([topic, n]) => ({ topic, injected: n, dead_lettered: poisonSeen.get(topic) ?? 0 }));
  results.push({
    name: 'DLQ: only the injected poison, all of it',
    ok: unexplained.length === 0 && missingPoison.length === 0,
    value: `${s.deadLetters.length} entries, ${unexplained.length} unexplained, ${missingPoison.length} poison missing`,
    details: first([...unexplained, ...missingPoison]),
  });

  // a process that crashes on its own (on a broker kill, say) fails the run even though it was restarted
  results.push({
    name: 'no service process exited by itself',
    ok: opts.unexpectedExits.length === 0,
    value: `${opts.unexpectedExits.length} unexpected exits`,
    details: first(opts.unexpectedExits),
  });

  const reservations: Record<string, number> = {};
  for (const r of s.reservations) {
    const k =
      r.status === 'released'
        ? `released ${r.tombstone ? 'tombstone' : (r.release_reason ?? '')}`.trim()
        : r.status;
    reservations[k] = (reservations[k] ?? 0) + 1;
  }
  return { results, outcomes, reservations, terminalMs };
}

/** Counters balanced, committed = units of sold orders, nothing held, the ledger replays to the counters. */
function stockInvariants(s: Snapshot, terminal: readonly OrderRow[]): InvariantResult[] {
  const results: InvariantResult[] = [];
  const soldUnits = new Map<string, number>();
  for (const o of terminal)
    if (SOLD.has(o.saga.state)) for (const l of o.items) add(soldUnits, key(l.product_id, o.zone), l.qty);
  const unbalanced: unknown[] = [];
  const oversold: unknown[] = [];
  const held: unknown[] = [];
  let oversoldUnits = 0;
  for (const r of s.stock) {
    if (
      r.received + r.adjusted !== r.available + r.reserved + r.committed ||
      r.available < 0 ||
      r.reserved < 0 ||
      r.committed < 0
    ) {
      unbalanced.push({
        product: r.product_id,
        zone: r.zone,
        received: r.received,
        adjusted: r.adjusted,
        available: r.available,
        reserved: r.reserved,
        committed: r.committed,
      });
    }
    const sold = soldUnits.get(key(r.product_id, r.zone)) ?? 0;
    if (r.committed !== sold) {
      oversoldUnits += Math.max(0, r.committed - sold);
      oversold.push({ product: r.product_id, zone: r.zone, committed: r.committed, sold_units: sold });
    }
    if (r.reserved !== 0 || r.reservations.length > 0)
      held.push({ product: r.product_id, zone: r.zone, reserved: r.reserved, holds: r.reservations.length });
  }
  results.push({
    name: 'stock balanced (received − adjustments = available + reserved + committed ≥ 0)',
    ok: unbalanced.length === 0,
    value: `${unbalanced.length} of ${s.stock.length} rows off`,
    details: first(unbalanced),
  });
  results.push({
    name: 'committed = units of sold orders (0 oversold)',
    ok: oversold.length === 0,
    value: `${oversoldUnits} units oversold, ${oversold.length} rows differ`,
    details: first(oversold),
  });
  results.push({
    name: 'nothing left held after the saga ended',
    ok: held.length === 0,
    value: `${held.length} rows with holds`,
    details: first(held),
  });

  // replaying every movement (ledger collection + entries not yet flushed) gives the counters
  const replay = new Map<string, { available: number; reserved: number; committed: number }>();
  const unknownKinds = new Set<string>();
  for (const e of ledgerOf(s)) {
    const k = key(e.product_id, e.zone);
    const c = replay.get(k) ?? { available: 0, reserved: 0, committed: 0 };
    if (e.kind === 'restock' || e.kind === 'adjust') {
      c.available += e.qty;
    } else if (e.kind === 'reserve') {
      c.available -= e.qty;
      c.reserved += e.qty;
    } else if (e.kind === 'release' || e.kind === 'expire') {
      // same movement; who ended the hold (the saga or the clock) is checked on the reservations
      c.available += e.qty;
      c.reserved -= e.qty;
    } else if (e.kind === 'commit') {
      c.reserved -= e.qty;
      c.committed += e.qty;
    } else if (e.kind === 'return') {
      // a sold order cancelled by its customer: its units back on sale (ReturnStock)
      c.committed -= e.qty;
      c.available += e.qty;
    } else {
      // a movement this check does not know cannot be replayed: a finding, never silently skipped
      unknownKinds.add(e.kind);
    }
    replay.set(k, c);
  }
  const ledgerOff: unknown[] = [];
  for (const r of s.stock) {
    const c = replay.get(key(r.product_id, r.zone)) ?? { available: 0, reserved: 0, committed: 0 };
    if (c.available !== r.available || c.reserved !== r.reserved || c.committed !== r.committed)
      ledgerOff.push({
        product: r.product_id,
        zone: r.zone,
        counters: [r.available, r.reserved, r.committed],
        ledger: [c.available, c.reserved, c.committed],
      });
  }
  for (const kind of unknownKinds) ledgerOff.push({ unknown_ledger_kind: kind });
  results.push({
    name: 'ledger balanced (replay = counters)',
    ok: ledgerOff.length === 0,
    value: `${ledgerOff.length} rows off`,
    details: first(ledgerOff),
  });
  return results;
}

/** The ledger collection plus the entries stock documents still carry (not yet flushed). */
function ledgerOf(s: Snapshot): LedgerRow[] {
  const flushed = new Set(s.ledger.map((e) => String(e._id)));
  const unflushed = s.stock.flatMap((r) =>
    (r._ledger ?? [])
      .filter((e) => !flushed.has(String(e._id)))
      .map((e) => ({ ...e, product_id: r.product_id, zone: r.zone })),
  );
  return [...s.ledger, ...unflushed];
}

/**
 * How each order's reservation ended, and who ended its holds: a sold order's reservation is
 * committed; one sold and cancelled since (after confirmation, or by its customer while the commit
 * was in flight) returned; one cancelled before any sale released by the saga's ReleaseStock (or
 * rejected) — never by the clock (the run uses the production hold, longer than the run, so a lost
 * ReleaseStock cannot hide behind an expiry). Per order the ledger holds its units as `commit` once
 * if it was ever sold and as `return` once if it was cancelled since.
 */
function reservationInvariants(s: Snapshot, terminal: readonly OrderRow[]): InvariantResult[] {
  const results: InvariantResult[] = [];
  const reservationOf = new Map(s.reservations.map((r) => [String(r._id).toLowerCase(), r]));
  const ledger = ledgerOf(s);
  const moved = new Map<string, number>();
  for (const e of ledger)
    if (e.order_id && (e.kind === 'commit' || e.kind === 'return'))
      add(moved, `${e.order_id.toLowerCase()}:${e.kind}:${e.product_id.toLowerCase()}`, e.qty);

  const reservationOff: unknown[] = [];
  const unitsOff: unknown[] = [];
  let returnedAfterConfirmation = 0;
  for (const o of terminal) {
    const r = reservationOf.get(o._id.toLowerCase());
    const confirmed = everConfirmed(o);
    const soldOnce = everSold(o);
    const sold = SOLD.has(o.saga.state);
    let ok: boolean;
    let want: string;
    if (sold) {
      want = 'committed';
      ok = r?.status === 'committed';
    } else if (soldOnce) {
      want = 'returned';
      ok = r?.status === 'returned';
    } else {
      want = 'released by the saga (ReleaseStock) or rejected';
      ok =
        r?.status === 'rejected' ||
        (r?.status === 'released' && (r.release_reason === 'compensation' || r.tombstone === true));
    }
    if (!ok || r?.pending)
      reservationOff.push({
        order: o._id,
        state: o.saga.state,
        confirmed,
        sold_once: soldOnce,
        want,
        reservation: r
          ? { status: r.status, release_reason: r.release_reason ?? null, pending: r.pending ?? null }
          : 'missing',
      });
    if (o.saga.state === 'CANCELLED' && confirmed) returnedAfterConfirmation++;
    for (const l of o.items) {
      const p = l.product_id.toLowerCase();
      const committed = moved.get(`${o._id.toLowerCase()}:commit:${p}`) ?? 0;
      const returned = moved.get(`${o._id.toLowerCase()}:return:${p}`) ?? 0;
      const wantCommitted = soldOnce ? l.qty : 0;
      const wantReturned = soldOnce && !sold ? l.qty : 0;
      if (committed !== wantCommitted || returned !== wantReturned)
        unitsOff.push({
          order: o._id,
          product: p,
          state: o.saga.state,
          committed,
          returned,
          want: [wantCommitted, wantReturned],
        });
    }
  }
  results.push({
    name: 'every reservation ends as its order (sold → committed, sold then cancelled → returned, cancelled unsold → released by the saga)',
    ok: reservationOff.length === 0,
    value: `${reservationOff.length} of ${terminal.length} orders off`,
    details: first(reservationOff),
  });
  const expired = s.reservations.filter((r) => r.status === 'expired' || r.release_reason === 'expired');
  const expiredUnits = ledger.filter((e) => e.kind === 'expire').reduce((n, e) => n + e.qty, 0);
  results.push({
    name: 'no hold ended by the clock (production hold: every hold released by the saga)',
    ok: expired.length === 0 && expiredUnits === 0,
    value: `${expired.length} reservations expired, ${expiredUnits} units in 'expire' ledger entries`,
    details: first(
      expired.map((r) => ({ order: r._id, status: r.status, release_reason: r.release_reason ?? null })),
    ),
  });
  results.push({
    name: 'every order sold at most once and returned at most once (ledger commit/return units per order)',
    ok: unitsOff.length === 0,
    value: `${unitsOff.length} order lines off`,
    details: first(unitsOff),
  });
  const returnEntries = ledger.filter((e) => e.kind === 'return').length;
  results.push({
    name: 'cancel after confirmation exercised (a CANCELLED order that was CONFIRMED, a ledger return)',
    ok: returnedAfterConfirmation > 0 && returnEntries > 0,
    value: `${returnedAfterConfirmation} orders cancelled after confirmation, ${returnEntries} return entries`,
    details: [],
  });
  return results;
}

/**
 * Money, from the PSP simulator's own records: a sold order's payment is captured and not reversed;
 * a cancelled order's is not authorized-and-open nor captured-and-kept; at most one effective
 * capture (by a sale or a capture), refund and void per order, whatever the idempotency keys
 * (`<order>:refund`, `<order>:refund:r1`, …) — an operation is effective when its outcome says it
 * did its job (`captured`, `refunded`, `voided`; a contradicted reversal, `not_captured`/`already_captured`, is not).
 */
function paymentInvariants(s: Snapshot): InvariantResult[] {
  const paymentOf = new Map(s.payments.map((p) => [String(p._id), p]));
  const orderIds = new Set(s.orders.map((o) => o._id));
  const effective = new Map<string, number>();
  for (const op of s.operations) {
    const e = EFFECTIVE[op.op];
    if (e && op.outcome.status === e.when) add(effective, `${op.reference}:${e.effect}`, 1);
  }
  const repeated = [...effective]
    .filter(([, n]) => n > 1)
    .map(([k, n]) => ({
      reference: k.slice(0, k.lastIndexOf(':')),
      op: k.slice(k.lastIndexOf(':') + 1),
      effective: n,
    }));
  const paymentOff: unknown[] = [];
  for (const o of s.orders) {
    if (!TERMINAL.has(o.saga.state)) continue;
    const status = paymentOf.get(o._id)?.status ?? 'none';
    const reversals = (effective.get(`${o._id}:refund`) ?? 0) + (effective.get(`${o._id}:void`) ?? 0);
    if (SOLD.has(o.saga.state) && (status !== 'captured' || reversals > 0))
      paymentOff.push({
        order: o._id,
        state: o.saga.state,
        payment: status,
        reversals,
        want: 'captured, not reversed',
      });
    if (o.saga.state === 'CANCELLED' && status !== 'none' && !CLOSED_PAYMENT.has(status))
      paymentOff.push({
        order: o._id,
        state: o.saga.state,
        payment: status,
        want: 'none, declined, voided or refunded',
      });
  }
  for (const p of s.payments)
    if (!orderIds.has(String(p._id))) paymentOff.push({ payment: p._id, status: p.status, order: 'missing' });
  return [
    {
      name: 'PSP: sold orders captured and not reversed; cancelled ones neither authorized-and-open nor captured-and-kept',
      ok: paymentOff.length === 0,
      value: `${paymentOff.length} payments off`,
      details: first(paymentOff),
    },
    {
      name: 'PSP: at most one effective capture, refund and void per order',
      ok: repeated.length === 0,
      value: `${repeated.length} repeated effective operations`,
      details: first(repeated),
    },
  ];
}

/** Confirmed (even if cancelled since) → the cart is ordered by this checkout; cancelled before → active again; no cart left checking out. */
function cartInvariant(s: Snapshot, byCheckout: ReadonlyMap<string, OrderRow[]>): InvariantResult {
  const cartOff: unknown[] = [];
  for (const o of s.orders) {
    if (!TERMINAL.has(o.saga.state)) continue;
    const cart = s.carts.get(o.cart_id);
    const want = everConfirmed(o) ? 'ordered' : 'active';
    const sameCheckout = want === 'active' || cart?.checkout_id === o.checkout_id;
    if (cart?.status !== want || !sameCheckout)
      cartOff.push({
        cart: o.cart_id,
        order: o._id,
        state: o.saga.state,
        cart_status: cart?.status ?? 'missing',
      });
  }
  for (const [cartId, cart] of s.carts) {
    // a checkout that never became an order (its answer lost, its publish never relayed) leaves its cart here
    if (cart.status === 'checking_out' && !(cart.checkout_id && byCheckout.has(cart.checkout_id)))
      cartOff.push({ cart: cartId, cart_status: cart.status, checkout: cart.checkout_id, order: 'none' });
  }
  return {
    name: 'every cart consistent with its order (none left checking out)',
    ok: cartOff.length === 0,
    value: `${cartOff.length} carts off of ${s.carts.size}`,
    details: first(cartOff),
  };
}

/**
 * Nothing acknowledged was rolled back: every 2xx answer and every published event is still backed
 * by the databases — the order passed through (or ended in) the state it announced, inventory's
 * ledger holds the movement it announced. Writes are w:majority and events leave through the
 * outbox only after that write, so a primary cut off from its majority may take a write and roll
 * it back, but nobody may have been told about it.
 */
function acknowledgedInvariant(s: Snapshot, acks: readonly Acknowledgement[]): InvariantResult {
  const orderOf = new Map(s.orders.map((o) => [o._id.toLowerCase(), o]));
  const moved = new Set(
    ledgerOf(s).flatMap((e) => (e.order_id ? [`${e.order_id.toLowerCase()}:${e.kind}`] : [])),
  );
  const off: unknown[] = [];
  for (const a of acks) {
    const id = a.order_id.toLowerCase();
    const o = orderOf.get(id);
    const [what, arg = ''] = a.requires.split(':') as [string, string?];
    const ok =
      what === 'ledger'
        ? moved.has(`${id}:${arg}`)
        : what === 'exists'
          ? o !== undefined
          : what === 'ended'
            ? o?.saga.state === arg
            : o !== undefined && (o.saga.state === arg || o.saga.history.some((h) => h.to === arg));
    if (!ok)
      off.push({
        order: a.order_id,
        told: a.source,
        requires: a.requires,
        state: o?.saga.state ?? 'missing',
      });
  }
  return {
    name: 'no acknowledged write rolled back (every 2xx answer and published event still in the databases)',
    ok: off.length === 0,
    value: `${off.length} of ${acks.length} acknowledgements without their write`,
    details: first(off),
  };
}

/**
 * No effect applied twice, whoever held the partition when: one envelope per order event on the
 * orders topic (a second id = a second transition sent by an instance that lost its partitions),
 * each order line reserved once in inventory's ledger, one effective authorization per order.
 */
function duplicateEffectInvariant(s: Snapshot, acks: readonly Acknowledgement[]): InvariantResult {
  const off: unknown[] = [];
  const ids = new Map<string, Set<string>>();
  for (const a of acks) {
    if (!a.event_id || !a.event_type || !ONCE_PER_ORDER.has(a.event_type)) continue;
    const k = `${a.order_id.toLowerCase()}:${a.event_type}`;
    ids.set(k, (ids.get(k) ?? new Set()).add(a.event_id));
  }
  for (const [k, set] of ids) if (set.size > 1) off.push({ order_event: k, envelopes: set.size });
  const reserved = new Map<string, number>();
  for (const e of ledgerOf(s))
    if (e.kind === 'reserve' && e.order_id)
      add(reserved, `${e.order_id.toLowerCase()}:${e.product_id.toLowerCase()}`, e.qty);
  for (const o of s.orders)
    for (const l of o.items) {
      const units = reserved.get(`${o._id.toLowerCase()}:${l.product_id.toLowerCase()}`) ?? 0;
      if (units > l.qty) off.push({ order: o._id, product: l.product_id, reserved: units, line_qty: l.qty });
    }
  const authorized = new Map<string, number>();
  for (const op of s.operations)
    if (AUTHORIZING[op.op] !== undefined && op.outcome.status === AUTHORIZING[op.op]) add(authorized, op.reference, 1);
  for (const [order, n] of authorized) if (n > 1) off.push({ order, effective_authorizations: n });
  return {
    name: 'no duplicate effect (one envelope per order event, each line reserved once, one authorization per order)',
    ok: off.length === 0,
    value: `${off.length} effects applied more than once`,
    details: first(off),
  };
}

/** Every record in the dead-letter topics of `topics`, read with a throwaway consumer. */
async function deadLetters(kafka: Kafka, topics: readonly string[]): Promise<DeadLetter[]> {
  const admin = kafka.admin();
  await admin.connect();
  const existing = new Set(await admin.listTopics());
  const dlqs = topics.map(dlqTopicOf).filter((t) => existing.has(t));
  const expected = new Map<string, number>();
  for (const t of dlqs)
    expected.set(
      t,
      (await admin.fetchTopicOffsets(t)).reduce((n, p) => n + Number(p.high) - Number(p.low), 0),
    );
  await admin.disconnect();
  const total = [...expected.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return [];
  const out: DeadLetter[] = [];
  const consumer = kafka.consumer({
    groupId: `chaos-dlq-reader-${Date.now()}`,
    allowAutoTopicCreation: false,
  });
  await consumer.connect();
  await consumer.subscribe({ topics: dlqs, fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`read ${out.length} of ${total} dead letters`)), 60_000);
    consumer
      .run({
        eachMessage: async ({ topic, message }) => {
          const h = (name: string): string => message.headers?.[name]?.toString() ?? '';
          out.push({
            original: h('x-original-topic') || topic.replace(/\.dlq$/, ''),
            poison: h('x-chaos-poison') === '1',
            group: h('x-dlq-consumer-group'),
            code: h('x-dlq-error-code'),
            reason: h('x-dlq-reason').slice(0, 300),
          });
          if (out.length >= total) {
            clearTimeout(timer);
            resolve();
          }
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return out;
}
