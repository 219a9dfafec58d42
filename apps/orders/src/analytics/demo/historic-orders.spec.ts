import { decodeEnvelope } from '@mw/contracts';
import { factsOf } from '../sales-facts';
import {
  historicOrder,
  HistoricOutcome,
  HistoricOrderSpec,
  historicOrderId,
  uuidFrom,
} from './historic-orders';

const spec = (outcome: HistoricOutcome): HistoricOrderSpec => ({
  seed: `spec-${JSON.stringify(outcome)}`,
  userId: 'a11ce000-5eed-4000-8000-000000000001',
  zone: 'EKB',
  at: new Date('2026-10-05T09:30:00.000Z'),
  items: [
    {
      product_id: '5eed00000000000000000405',
      name: 'Huawei Plus черный',
      category_id: '5eed000000000000000000a3',
      price: 378_990,
      qty: 2,
    },
    { product_id: '5eed00000000000000000017', name: 'Кабель USB-C', price: 59_900, qty: 1 },
  ],
  outcome,
});

const cases: [HistoricOutcome, string, string, string[], string[]][] = [
  [
    { kind: 'completed' },
    'COMPLETED',
    'completed',
    ['placed', 'sold'],
    ['OrderCreated', 'OrderConfirmed', 'OrderDeliveryStarted', 'OrderCompleted'],
  ],
  [
    { kind: 'delivering' },
    'DELIVERING',
    'delivering',
    ['placed', 'sold'],
    ['OrderCreated', 'OrderConfirmed', 'OrderDeliveryStarted'],
  ],
  [{ kind: 'confirmed' }, 'CONFIRMED', 'confirmed', ['placed', 'sold'], ['OrderCreated', 'OrderConfirmed']],
  [
    { kind: 'pending', deadline: new Date('2030-01-01T00:00:00.000Z') },
    'AWAITING_PAYMENT',
    'pending',
    ['placed'],
    ['OrderCreated'],
  ],
  [
    { kind: 'cancelled', reason: 'STOCK_REJECTED' },
    'CANCELLED',
    'cancelled',
    ['placed', 'cancelled'],
    ['OrderCreated', 'OrderCancelled'],
  ],
  [
    { kind: 'cancelled', reason: 'STOCK_DEADLINE_EXCEEDED' },
    'CANCELLED',
    'cancelled',
    ['placed', 'cancelled'],
    ['OrderCreated', 'OrderCancelled'],
  ],
  [
    { kind: 'cancelled', reason: 'CANCELLED_BY_USER' },
    'CANCELLED',
    'cancelled',
    ['placed', 'cancelled'],
    ['OrderCreated', 'OrderCancelled'],
  ],
  [
    { kind: 'cancelled', reason: 'PAYMENT_DECLINED' },
    'CANCELLED',
    'cancelled',
    ['placed', 'cancelled'],
    ['OrderCreated', 'OrderCancelled'],
  ],
  [
    { kind: 'cancelled', reason: 'PAYMENT_DEADLINE_EXCEEDED' },
    'CANCELLED',
    'cancelled',
    ['placed', 'cancelled'],
    ['OrderCreated', 'OrderCancelled'],
  ],
  [
    { kind: 'cancelled', reason: 'COMMIT_FAILED' },
    'CANCELLED',
    'cancelled',
    ['placed', 'sold', 'cancelled', 'sale_reversed'],
    ['OrderCreated', 'OrderConfirmed', 'OrderCancelled'],
  ],
  [
    { kind: 'cancelled_after_confirmation' },
    'CANCELLED',
    'cancelled',
    ['placed', 'sold', 'cancelled', 'sale_reversed'],
    ['OrderCreated', 'OrderConfirmed', 'OrderCancelled'],
  ],
];

describe('historic orders (demo data and test fixtures)', () => {
  it.each(cases)('%j: state %s, status %s, facts %j, events %j', (outcome, state, status, facts, events) => {
    const { doc, messages } = historicOrder(spec(outcome), 'orders.orders.v1');
    expect(doc.saga.state).toBe(state);
    expect(doc.status).toBe(status);
    expect(factsOf(doc)).toEqual(facts);
    expect(messages.map((m) => m.envelope.type)).toEqual(events);
    // a realistic saga: each transition starts where the previous one ended, in time order, causes unique
    const h = doc.saga.history;
    h.forEach((t, i) => expect(t.from).toBe(i === 0 ? 'AWAITING_STOCK' : h[i - 1]!.to));
    expect(h.map((t) => t.at.getTime())).toEqual([...h.map((t) => t.at.getTime())].sort((a, b) => a - b));
    expect(new Set(h.map((t) => t.cause)).size).toBe(h.length);
    expect(doc.version).toBe(h.length + 1);
    expect(doc.total).toBe(2 * 378_990 + 59_900);
    expect(doc.saga.reason).toBe(
      outcome.kind === 'cancelled'
        ? outcome.reason
        : outcome.kind === 'cancelled_after_confirmation'
          ? 'CANCELLED_BY_USER'
          : null,
    );
    expect(doc.saga.deadline).toEqual(outcome.kind === 'pending' ? outcome.deadline : null);
  });

  it('puts exactly its events in the outbox, valid for the contract, keyed by user, on the given topic', () => {
    const { doc, messages } = historicOrder(spec({ kind: 'cancelled_after_confirmation' }), 'test.orders.x');
    expect(doc._outbox!.map((e) => e.id)).toEqual(messages.map((m) => m.envelope.id));
    for (const entry of doc._outbox!) {
      expect(entry.topic).toBe('test.orders.x');
      expect(entry.key).toBe(doc.user_id);
      const decoded = decodeEnvelope('orders.orders.v1', JSON.parse(entry.envelope));
      expect(decoded.ok).toBe(true);
    }
    const cancelled = messages.find((m) => m.envelope.type === 'OrderCancelled')!.envelope.payload as Record<
      string,
      unknown
    >;
    expect(cancelled).toMatchObject({
      order_id: doc._id,
      reason: 'CANCELLED_BY_USER',
      after_confirmation: true,
    });
    expect(doc.saga.payment).toMatchObject({ authorized: true, captured: true, reversed: 'refunded' });
    expect(doc.saga.stock.return).toBe('returned');
  });

  it('is deterministic: the same spec gives the same ids, documents and envelopes (a rerun inserts nothing new)', () => {
    const a = historicOrder(spec({ kind: 'completed' }), 'orders.orders.v1');
    const b = historicOrder(spec({ kind: 'completed' }), 'orders.orders.v1');
    expect(a).toEqual(b);
    expect(a.doc._id).toBe(historicOrderId(spec({ kind: 'completed' }).seed));
    expect(a.doc._id).toMatch(/^[0-9a-f]{24}$/);
    expect(uuidFrom('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
