import { uniqueName, waitFor } from '@mw/testing';
import { OrdersHarness, serviceBearer } from '../test/harness';
import { SIM_PAYMENTS } from './simulator/simulated-payment.gateway';

const lateUser = uniqueName('late-capture');
const hungUser = uniqueName('hung');

const history = (o: { history: { from: string; to: string; event: string }[] }): string[] =>
  o.history.map((t) => `${t.from}>${t.to}:${t.event}`);

/**
 * A reversal is recorded only when it happened (issue 16): real orders instances, the persisted PSP
 * simulator and real Kafka + MongoDB. The simulator lands a late capture between the refund and the
 * void; the reconciliation finds a cancelled order whose money the PSP still holds.
 */
describe('payment reversal and reconciliation (real Kafka + MongoDB)', () => {
  const h = new OrdersHarness({
    SAGA_PAYMENT_TIMEOUT_MS: '3000',
    SAGA_CANCEL_TIMEOUT_MS: '60000',
    PAYMENT_SIM_LATE_CAPTURE_USERS: lateUser,
    PAYMENT_SIM_HANG_USERS: hungUser,
    PAYMENT_RECONCILE_INTERVAL_MS: '300',
    PAYMENT_RECONCILE_GRACE_MS: '500',
  });

  beforeAll(() => h.start(1), 120_000);
  afterAll(() => h.stop());

  it('a capture landing between the refund (not_captured) and the void (already_captured) is refunded in a second round, never recorded as voided', async () => {
    const c = h.checkout({ user_id: lateUser });
    await h.sendCheckout(c);
    await h.waitSeen(c.order_id, 'ReserveStock');
    await h.reserved(c);
    const order = await h.waitState(c.order_id, 'CANCELLED', 45_000);
    expect(order).toMatchObject({
      reason: 'PAYMENT_DEADLINE_EXCEEDED',
      // the sale's answer never came (it landed late): the saga never saw an authorization
      payment: { authorized: false, captured: false, reversed: 'refunded', reversal_round: 1 },
    });
    expect(history(order)).toEqual([
      'AWAITING_STOCK>AWAITING_PAYMENT:StockReserved',
      'AWAITING_PAYMENT>CANCELLING:DeadlinePassed',
      'CANCELLING>CANCELLING:PaymentReversalContradicted',
      'CANCELLING>CANCELLED:PaymentReversed',
    ]);
    const ops = await h.paymentOps(c.order_id);
    expect(ops.map((o) => `${o._id.slice(c.order_id.length + 1)}=${o.outcome.status}`).sort()).toEqual([
      'refund:r1=refunded',
      'refund=not_captured',
      'void=already_captured',
    ]);
    const psp = await h.db.collection(SIM_PAYMENTS).findOne({ _id: c.order_id as never });
    expect(psp?.['status']).toBe('refunded');
    await h.waitSeen(c.order_id, 'OrderCancelled');
    await new Promise((r) => setTimeout(r, 1000));
    expect(h.for(c.order_id, 'OrderCancelled')).toHaveLength(1);
    const metrics = await fetch(`${h.urls[0]}/metrics`, { headers: await serviceBearer() }).then((r) =>
      r.text(),
    );
    expect(metrics).toMatch(/orders_payment_reversal_contradictions_total\{step="REFUND"\} 1\b/);
  });

  it('the reconciliation re-arms a reversal the PSP does not show: money still captured on a cancelled order is refunded, announced once, counted', async () => {
    const c = h.checkout({ user_id: hungUser });
    await h.sendCheckout(c);
    await h.waitSeen(c.order_id, 'ReserveStock');
    await h.reserved(c);
    const cancelled = await h.waitState(c.order_id, 'CANCELLED', 30_000);
    expect(cancelled.payment).toMatchObject({ reversed: 'voided', reversal_round: 0 });
    // The PSP holds the money anyway (what the old fallback left behind): the saga's record lies.
    const moved = await h.db
      .collection(SIM_PAYMENTS)
      .updateOne({ _id: c.order_id as never }, { $set: { status: 'captured', amount: c.total } });
    expect(moved.modifiedCount).toBe(1);

    const order = await waitFor(
      async () => {
        const r = await h.order(c.order_id);
        return r.body.state === 'CANCELLED' && r.body.payment.reversed === 'refunded' ? r.body : undefined;
      },
      30_000,
      'the re-armed refund',
    );
    expect(history(order)).toEqual([
      'AWAITING_STOCK>AWAITING_PAYMENT:StockReserved',
      'AWAITING_PAYMENT>CANCELLING:DeadlinePassed',
      'CANCELLING>CANCELLED:PaymentReversed',
      'CANCELLED>CANCELLING:PaymentMismatchFound',
      'CANCELLING>CANCELLED:PaymentReversed',
    ]);
    expect(order.payment).toMatchObject({ reversed: 'refunded', reversal_round: 1 });
    const psp = await h.db.collection(SIM_PAYMENTS).findOne({ _id: c.order_id as never });
    expect(psp?.['status']).toBe('refunded');
    await new Promise((r) => setTimeout(r, 1500));
    expect(h.for(c.order_id, 'OrderCancelled')).toHaveLength(1);
    const metrics = await fetch(`${h.urls[0]}/metrics`, { headers: await serviceBearer() }).then((r) =>
      r.text(),
    );
    expect(metrics).toMatch(
      /orders_payment_reconciliation_mismatches_total\{missing="REFUND",state="CANCELLED"\} 1\b/,
    );
    // Consistent now: the next pass marks it and never looks at it again.
    const marked = await waitFor(
      async () => {
        const doc = await h.db.collection('orders').findOne({ _id: c.order_id as never });
        return doc?.['payment_reconciled_at'] ? doc : undefined;
      },
      15_000,
      'the order marked reconciled',
    );
    expect(marked['payment_reconciled_at']).toBeInstanceOf(Date);
  });
});
