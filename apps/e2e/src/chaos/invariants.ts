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

interface StockRow {
  product_id: string;
  zone: string;
  available: number;
  reserved: number;
  committed: number;
  received: number;
  adjusted: number;
  reservations: { order_id: string; qty: number }[];
  _ledger?: { _id: string; kind: string; qty: number }[];
}

interface OrderRow {
  _id: string;
  checkout_id: string;
  cart_id: string;
  zone: string;
  items: { product_id: string; qty: number }[];
  saga: { state: string; reason: string | null; history: { to: string; at: Date }[] };
}

/** The checkout saga ended: sold (and maybe handed to delivery since) or cancelled. */
const TERMINAL = new Set(['CONFIRMED', 'DELIVERING', 'COMPLETED', 'CANCELLED']);
/** Sold right now: its units are committed in inventory and its money captured (a cancel after confirmation returned both). */
const SOLD = new Set(['CONFIRMED', 'DELIVERING', 'COMPLETED']);
/** Confirmed at some point: its cart was ordered for good, even if the customer cancelled the order afterwards. */
const everConfirmed = (o: OrderRow): boolean => o.saga.history.some((h) => h.to === 'CONFIRMED');
const key = (productId: string, zone: string): string => `${productId.toLowerCase()}:${zone}`;
const first = <T>(rows: T[]): T[] => rows.slice(0, 10);

/** Orders of the accepted checkouts (by checkout id; more than one per checkout is a finding). */
export async function ordersOf(orders: Db, accepted: readonly AcceptedCheckout[]): Promise<Map<string, OrderRow[]>> {
  const rows = await orders
    .collection<OrderRow>('orders')
    .find({ checkout_id: { $in: accepted.map((a) => a.checkout_id) } }, { projection: { checkout_id: 1, cart_id: 1, zone: 1, items: 1, 'saga.state': 1, 'saga.reason': 1, 'saga.history': 1 } })
    .toArray();
  const byCheckout = new Map<string, OrderRow[]>();
  for (const r of rows) byCheckout.set(r.checkout_id, [...(byCheckout.get(r.checkout_id) ?? []), r]);
  return byCheckout;
}

export interface CheckInput {
  readonly inventory: Db;
  readonly orders: Db;
  readonly cassandra: CassandraClient;
  readonly cartsKeyspace: string;
  readonly kafka: Kafka;
  readonly topics: readonly string[];
  readonly accepted: readonly AcceptedCheckout[];
  /** Poison messages the run injected, per topic: their DLQ entries are the explained ones. */
  readonly poisoned: ReadonlyMap<string, number>;
  /** Longest a checkout may take from acceptance to a terminal order (saga deadlines + longest outage). */
  readonly terminalBudgetMs: number;
}

export async function checkAll(input: CheckInput): Promise<{ results: InvariantResult[]; outcomes: Record<string, number>; terminalMs: number[] }> {
  const byCheckout = await ordersOf(input.orders, input.accepted);
  const results: InvariantResult[] = [];
  const outcomes: Record<string, number> = {};
  const terminalMs: number[] = [];

  // 1. every accepted checkout has exactly one order, terminal within its budget
  const lost: unknown[] = [];
  const doubled: unknown[] = [];
  const open: unknown[] = [];
  const late: unknown[] = [];
  for (const a of input.accepted) {
    const rows = byCheckout.get(a.checkout_id) ?? [];
    if (rows.length === 0) lost.push({ checkout_id: a.checkout_id, cart_id: a.cart_id });
    if (rows.length > 1) doubled.push({ checkout_id: a.checkout_id, orders: rows.map((r) => r._id) });
    const o = rows[0];
    if (!o) continue;
    const outcome = o.saga.state === 'CANCELLED' ? `CANCELLED ${o.saga.reason ?? ''}`.trim() : o.saga.state;
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    if (!TERMINAL.has(o.saga.state)) {
      open.push({ order: o._id, state: o.saga.state });
      continue;
    }
    const end = o.saga.history.filter((h) => TERMINAL.has(h.to)).map((h) => new Date(h.at).getTime())[0];
    if (end !== undefined) {
      const took = end - a.accepted_at;
      terminalMs.push(took);
      if (took > input.terminalBudgetMs) late.push({ order: o._id, took_ms: took });
    }
  }
  results.push({ name: 'no lost checkout (accepted → an order)', ok: lost.length === 0, value: `${lost.length} lost of ${input.accepted.length}`, details: first(lost) });
  results.push({ name: 'one order per checkout', ok: doubled.length === 0, value: `${doubled.length} checkouts with several orders`, details: first(doubled) });
  results.push({ name: 'every order terminal', ok: open.length === 0, value: `${open.length} not terminal`, details: first(open) });
  results.push({
    name: `terminal within budget (${Math.round(input.terminalBudgetMs / 1000)} s)`,
    ok: late.length === 0,
    value: `${late.length} late; max ${Math.round(Math.max(0, ...terminalMs) / 100) / 10} s`,
    details: first(late),
  });

  // 2. stock: received − adjustments = available + reserved + committed, committed = confirmed units, nothing held
  const confirmedUnits = new Map<string, number>();
  for (const rows of byCheckout.values()) {
    const o = rows[0];
    if (!o || !SOLD.has(o.saga.state)) continue;
    for (const l of o.items) confirmedUnits.set(key(l.product_id, o.zone), (confirmedUnits.get(key(l.product_id, o.zone)) ?? 0) + l.qty);
  }
  const stock = await input.inventory.collection<StockRow>('stock').find({}).toArray();
  const unbalanced: unknown[] = [];
  const oversold: unknown[] = [];
  const held: unknown[] = [];
  let oversoldUnits = 0;
  for (const s of stock) {
    if (s.received + s.adjusted !== s.available + s.reserved + s.committed || s.available < 0 || s.reserved < 0 || s.committed < 0) {
      unbalanced.push({ product: s.product_id, zone: s.zone, received: s.received, adjusted: s.adjusted, available: s.available, reserved: s.reserved, committed: s.committed });
    }
    const sold = confirmedUnits.get(key(s.product_id, s.zone)) ?? 0;
    if (s.committed !== sold) {
      oversoldUnits += Math.max(0, s.committed - sold);
      oversold.push({ product: s.product_id, zone: s.zone, committed: s.committed, confirmed_units: sold });
    }
    if (s.reserved !== 0 || s.reservations.length > 0) held.push({ product: s.product_id, zone: s.zone, reserved: s.reserved, holds: s.reservations.length });
  }
  results.push({ name: 'stock balanced (received − adjustments = available + reserved + committed ≥ 0)', ok: unbalanced.length === 0, value: `${unbalanced.length} of ${stock.length} rows off`, details: first(unbalanced) });
  results.push({ name: 'committed = units of sold orders (0 oversold)', ok: oversold.length === 0, value: `${oversoldUnits} units oversold, ${oversold.length} rows differ`, details: first(oversold) });
  results.push({ name: 'nothing left held after the saga ended', ok: held.length === 0, value: `${held.length} rows with holds`, details: first(held) });

  // 3. ledger: replaying every movement (ledger collection + entries not yet flushed) gives the counters
  const sums = await input.inventory
    .collection('ledger')
    .aggregate<{ _id: { p: string; z: string; k: string }; qty: number }>([{ $group: { _id: { p: '$product_id', z: '$zone', k: '$kind' }, qty: { $sum: '$qty' } } }])
    .toArray();
  const flushed = new Set((await input.inventory.collection('ledger').find({}, { projection: { _id: 1 } }).toArray()).map((d) => String(d._id)));
  const replay = new Map<string, { available: number; reserved: number; committed: number }>();
  const apply = (k: string, kind: string, qty: number): void => {
    const c = replay.get(k) ?? { available: 0, reserved: 0, committed: 0 };
    if (kind === 'restock' || kind === 'adjust') {
      c.available += qty;
    } else if (kind === 'reserve') {
      c.available -= qty;
      c.reserved += qty;
    } else if (kind === 'release' || kind === 'expire') {
      c.available += qty;
      c.reserved -= qty;
    } else if (kind === 'commit') {
      c.reserved -= qty;
      c.committed += qty;
    } else if (kind === 'return') {
      // a sold order cancelled by its customer: its units back on sale (ReturnStock)
      c.committed -= qty;
      c.available += qty;
    } else {
      // a movement this check does not know cannot be replayed: a finding, never silently skipped
      unknownKinds.add(kind);
    }
    replay.set(k, c);
  };
  const unknownKinds = new Set<string>();
  for (const s of sums) apply(key(s._id.p, s._id.z), s._id.k, s.qty);
  for (const s of stock) for (const e of s._ledger ?? []) if (!flushed.has(e._id)) apply(key(s.product_id, s.zone), e.kind, e.qty);
  const ledgerOff: unknown[] = [];
  for (const s of stock) {
    const r = replay.get(key(s.product_id, s.zone)) ?? { available: 0, reserved: 0, committed: 0 };
    if (r.available !== s.available || r.reserved !== s.reserved || r.committed !== s.committed) ledgerOff.push({ product: s.product_id, zone: s.zone, counters: [s.available, s.reserved, s.committed], ledger: [r.available, r.reserved, r.committed] });
  }
  for (const kind of unknownKinds) ledgerOff.push({ unknown_ledger_kind: kind });
  results.push({ name: 'ledger balanced (replay = counters)', ok: ledgerOff.length === 0, value: `${ledgerOff.length} rows off`, details: first(ledgerOff) });

  // 4. payments: at most one capture per order; confirmed = captured once; a cancelled capture was refunded
  const ops = await input.orders
    .collection<{ reference: string; op: string; outcome: { status: string } }>('payment_sim_operations')
    .find({}, { projection: { reference: 1, op: 1, outcome: 1 } })
    .toArray();
  const captures = new Map<string, number>();
  const refunds = new Set<string>();
  for (const op of ops) {
    if (op.op === 'capture' && op.outcome.status === 'captured') captures.set(op.reference, (captures.get(op.reference) ?? 0) + 1);
    if (op.op === 'refund' && op.outcome.status === 'refunded') refunds.add(op.reference);
  }
  const doubleCaptures = [...captures].filter(([, n]) => n > 1).map(([reference, n]) => ({ reference, captures: n }));
  const paymentOff: unknown[] = [];
  for (const rows of byCheckout.values()) {
    const o = rows[0];
    if (!o) continue;
    const captured = (captures.get(o._id) ?? 0) > 0;
    if (SOLD.has(o.saga.state) && !captured) paymentOff.push({ order: o._id, state: o.saga.state, captured });
    if (o.saga.state === 'CANCELLED' && captured && !refunds.has(o._id)) paymentOff.push({ order: o._id, state: o.saga.state, captured, refunded: false });
  }
  results.push({ name: '0 double captures', ok: doubleCaptures.length === 0, value: `${doubleCaptures.length} orders captured twice`, details: first(doubleCaptures) });
  results.push({ name: 'confirmed ⇔ charged (cancelled captures refunded)', ok: paymentOff.length === 0, value: `${paymentOff.length} orders off`, details: first(paymentOff) });

  // 5. carts: confirmed (even if cancelled since) → the cart is ordered by this checkout; cancelled before → active again
  const cartOff: unknown[] = [];
  for (const a of input.accepted) {
    const o = byCheckout.get(a.checkout_id)?.[0];
    if (!o || !TERMINAL.has(o.saga.state)) continue;
    const row = (await input.cassandra.execute(`SELECT status, checkout FROM ${input.cartsKeyspace}.carts WHERE cart_id = ?`, [a.cart_id], { prepare: true })).first();
    const status = row?.get('status') as string | undefined;
    const checkout = row?.get('checkout') ? (JSON.parse(row.get('checkout') as string) as { checkout_id?: string }) : null;
    const want = everConfirmed(o) ? 'ordered' : 'active';
    const sameCheckout = want === 'active' || checkout?.checkout_id === a.checkout_id;
    if (status !== want || !sameCheckout) cartOff.push({ cart: a.cart_id, order: o._id, state: o.saga.state, cart_status: status ?? 'missing' });
  }
  results.push({ name: 'every cart consistent with its order', ok: cartOff.length === 0, value: `${cartOff.length} carts off`, details: first(cartOff) });

  // 6. dead letters: only the poison the run injected
  const dlq = await deadLetters(input.kafka, input.topics);
  const unexplained = dlq.filter((d) => !d.poison);
  const poisonSeen = new Map<string, number>();
  for (const d of dlq.filter((x) => x.poison)) poisonSeen.set(d.original, (poisonSeen.get(d.original) ?? 0) + 1);
  const missingPoison = [...input.poisoned].filter(([t, n]) => (poisonSeen.get(t) ?? 0) < n).map(([topic, n]) => ({ topic, injected: n, dead_lettered: poisonSeen.get(topic) ?? 0 }));
  results.push({
    name: 'DLQ: only the injected poison, all of it',
    ok: unexplained.length === 0 && missingPoison.length === 0,
    value: `${dlq.length} entries, ${unexplained.length} unexplained, ${missingPoison.length} poison missing`,
    details: first([...unexplained, ...missingPoison]),
  });

  return { results, outcomes, terminalMs };
}

interface DeadLetter {
  readonly original: string;
  readonly poison: boolean;
  readonly group: string;
  readonly code: string;
  readonly reason: string;
}

/** Every record in the dead-letter topics of `topics`, read with a throwaway consumer. */
async function deadLetters(kafka: Kafka, topics: readonly string[]): Promise<DeadLetter[]> {
  const admin = kafka.admin();
  await admin.connect();
  const existing = new Set(await admin.listTopics());
  const dlqs = topics.map(dlqTopicOf).filter((t) => existing.has(t));
  const expected = new Map<string, number>();
  for (const t of dlqs) expected.set(t, (await admin.fetchTopicOffsets(t)).reduce((n, p) => n + Number(p.high) - Number(p.low), 0));
  await admin.disconnect();
  const total = [...expected.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return [];
  const out: DeadLetter[] = [];
  const consumer = kafka.consumer({ groupId: `chaos-dlq-reader-${Date.now()}`, allowAutoTopicCreation: false });
  await consumer.connect();
  await consumer.subscribe({ topics: dlqs, fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`read ${out.length} of ${total} dead letters`)), 60_000);
    consumer
      .run({
        eachMessage: async ({ topic, message }) => {
          const h = (name: string): string => message.headers?.[name]?.toString() ?? '';
          out.push({ original: h('x-original-topic') || topic.replace(/\.dlq$/, ''), poison: h('x-chaos-poison') === '1', group: h('x-dlq-consumer-group'), code: h('x-dlq-error-code'), reason: h('x-dlq-reason').slice(0, 300) });
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
