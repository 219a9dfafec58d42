import {
  actionId,
  type Actor,
  decide,
  Decision,
  Saga,
  SagaInput,
  SagaTimeouts,
  startSaga,
  statusOf,
  SYSTEM_ACTORS,
} from './saga';

/** The order's life after checkout (and cancellations during it): delivery, cancel, duplicates, refusals. */

const t: SagaTimeouts = { stockMs: 1000, paymentMs: 2000, commitMs: 3000, cancelMs: 4000 };
const t0 = new Date('2026-11-21T10:00:00Z');
let n = 0;
const id = () => `m-${++n}`;
const ORDER = '56e540608eca05a5f7400db0';

const alice: Actor = { sub: 'a11ce000-5eed-4000-8000-000000000001', role: 'customer' };
const sue: Actor = { sub: '50e00000-5eed-4000-8000-000000000005', role: 'support' };
const otto: Actor = { sub: '07700000-5eed-4000-8000-000000000006', role: 'operator' };
const cancel: SagaInput = { type: 'CancelRequested', id: actionId('CancelRequested', ORDER), by: alice };
const cancelBySupport: SagaInput = { ...cancel, by: sue };
const deliver: SagaInput = { type: 'DeliveryStarted', id: actionId('DeliveryStarted', ORDER), by: otto };
const complete: SagaInput = { type: 'DeliveryCompleted', id: actionId('DeliveryCompleted', ORDER), by: otto };

function apply(saga: Saga, input: SagaInput): { saga: Saga; commands: string[]; decision: Decision } {
  const d = decide(saga, input, t0, t);
  if (d.kind !== 'apply') return { saga, commands: [], decision: d };
  const commands = d.commands.map((c) =>
    c.type === 'OrderCancelled'
      ? `OrderCancelled:${c.reason}:${c.after_confirmation ? 'after' : 'before'}`
      : c.type,
  );
  return { saga: d.saga, commands, decision: d };
}

function run(saga: Saga, ...inputs: SagaInput[]): { saga: Saga; commands: string[] } {
  const commands: string[] = [];
  for (const input of inputs) {
    const r = apply(saga, input);
    saga = r.saga;
    commands.push(...r.commands);
  }
  return { saga, commands };
}

const reserved = (): SagaInput => ({
  type: 'StockReserved',
  id: id(),
  expires_at: new Date(t0.getTime() + 60_000),
});
const authorized = (): SagaInput => ({
  type: 'PaymentAuthorized',
  id: `${ORDER}:authorize`,
  authorization_id: 'a-1',
});
/** The checkout's payment: one sale, authorized and captured together (ADR 0015 §11). */
const sold = (): SagaInput => ({ type: 'PaymentCaptured', id: `${ORDER}:sale`, authorization_id: 'a-1' });
/** An order armed before the sale: its payment is AUTHORIZE, then CAPTURE. */
const twoStep = (saga: Saga): Saga => ({ ...saga, payment: { ...saga.payment, step: 'AUTHORIZE' } });
const committed = (): SagaInput => ({ type: 'StockCommitted', id: id() });
const refunded = (): SagaInput => ({ type: 'PaymentReversed', id: `${ORDER}:refund`, how: 'refunded' });
const voided = (): SagaInput => ({ type: 'PaymentReversed', id: `${ORDER}:void`, how: 'voided' });
const returned = (): SagaInput => ({ type: 'StockReturned', id: id() });

const confirmedSaga = (): Saga => run(startSaga(t0, t), reserved(), sold()).saga;
/** An order the earlier saga left COMMITTING: captured, its CommitStock awaiting StockCommitted (ADR 0015 §3). */
const committingSaga = (): Saga => {
  const paid = run(twoStep(run(startSaga(t0, t), reserved()).saga), authorized()).saga;
  return {
    ...paid,
    state: 'COMMITTING',
    deadline: new Date(t0.getTime() + t.commitMs),
    payment: { ...paid.payment, step: null, next_at: null, captured: true },
  };
};

describe('order lifecycle after checkout', () => {
  it('confirmed → delivering → completed, each with its event; statuses follow seed 002', () => {
    let s = confirmedSaga();
    expect(statusOf(s.state)).toBe('confirmed');
    const a = apply(s, deliver);
    expect(a.saga.state).toBe('DELIVERING');
    expect(a.commands).toEqual(['OrderDeliveryStarted']);
    expect(statusOf(a.saga.state)).toBe('delivering');
    s = a.saga;
    const b = apply(s, complete);
    expect(b.saga.state).toBe('COMPLETED');
    expect(b.commands).toEqual(['OrderCompleted']);
    expect(statusOf(b.saga.state)).toBe('completed');
    expect(b.saga.history.slice(-2).map((h) => `${h.from}>${h.to}:${h.event}:${h.cause}`)).toEqual([
      `CONFIRMED>DELIVERING:DeliveryStarted:deliver:${ORDER}`,
      `DELIVERING>COMPLETED:DeliveryCompleted:complete:${ORDER}`,
    ]);
  });

  it('a repeated action is a no-op (same id per order), not a second event', () => {
    const s = run(confirmedSaga(), deliver).saga;
    expect(apply(s, deliver).decision).toEqual({ kind: 'ignore', why: `duplicate of deliver:${ORDER}` });
    const done = run(s, complete).saga;
    expect(apply(done, complete).decision.kind).toBe('ignore');
    expect(apply(done, deliver).decision.kind).toBe('ignore');
    const cancelling = run(confirmedSaga(), cancel).saga;
    expect(apply(cancelling, cancel).decision.kind).toBe('ignore');
  });

  it('illegal transitions are refused with a code, and change nothing', () => {
    const pending = startSaga(t0, t);
    expect(apply(pending, deliver).decision).toMatchObject({
      kind: 'refuse',
      code: 'ORDERS.ILLEGAL_TRANSITION',
    });
    expect(apply(pending, complete).decision).toMatchObject({
      kind: 'refuse',
      code: 'ORDERS.ILLEGAL_TRANSITION',
    });
    expect(apply(confirmedSaga(), complete).decision).toMatchObject({
      kind: 'refuse',
      code: 'ORDERS.ILLEGAL_TRANSITION',
    });
    const delivering = run(confirmedSaga(), deliver).saga;
    expect(apply(delivering, cancel).decision).toMatchObject({
      kind: 'refuse',
      code: 'ORDERS.CANCEL_REFUSED',
    });
    const completed = run(delivering, complete).saga;
    expect(apply(completed, cancel).decision).toMatchObject({
      kind: 'refuse',
      code: 'ORDERS.CANCEL_REFUSED',
    });
    const cancelled = run(startSaga(t0, t), {
      type: 'StockRejected',
      id: id(),
      code: 'INVENTORY.INSUFFICIENT_STOCK',
    }).saga;
    expect(apply(cancelled, deliver).decision).toMatchObject({
      kind: 'refuse',
      code: 'ORDERS.ILLEGAL_TRANSITION',
    });
    // Cancelling a cancelled order is a repeat, not an error.
    expect(apply(cancelled, cancel).decision.kind).toBe('ignore');
  });

  it('cancel after confirmation: refund and ReturnStock; cancelled only when both are done (any order)', () => {
    const a = apply(confirmedSaga(), cancel);
    expect(a.saga).toMatchObject({
      state: 'CANCELLING',
      reason: 'CANCELLED_BY_USER',
      payment: { step: 'REFUND' },
      stock: { return: 'pending' },
    });
    expect(a.commands).toEqual(['ReturnStock']);
    expect(statusOf(a.saga.state)).toBe('cancelling');
    // Refund first, then the stock.
    const r1 = run(a.saga, refunded());
    expect(r1.saga.state).toBe('CANCELLING');
    expect(r1.commands).toEqual([]);
    const r2 = run(r1.saga, returned());
    expect(r2.saga).toMatchObject({
      state: 'CANCELLED',
      deadline: null,
      stock: { return: 'returned' },
      payment: { reversed: 'refunded', step: null },
    });
    expect(r2.commands).toEqual(['OrderCancelled:CANCELLED_BY_USER:after']);
    // Stock first, then the refund.
    const s1 = run(a.saga, returned());
    expect(s1.saga.state).toBe('CANCELLING');
    const s2 = run(s1.saga, refunded());
    expect(s2.saga.state).toBe('CANCELLED');
    expect(s2.commands).toEqual(['OrderCancelled:CANCELLED_BY_USER:after']);
    // A duplicated StockReturned changes nothing more.
    expect(apply(s2.saga, returned()).decision.kind).toBe('ignore');
  });

  it('the cancel deadline re-sends ReturnStock and re-arms the refund until both are done', () => {
    const a = apply(confirmedSaga(), cancel).saga;
    const d1 = apply(a, { type: 'DeadlinePassed', id: id() });
    expect(d1.commands).toEqual(['ReturnStock']);
    expect(d1.saga.payment).toMatchObject({ step: 'REFUND', next_at: t0 });
    const paid = run(a, refunded()).saga;
    const d2 = apply(paid, { type: 'DeadlinePassed', id: id() });
    expect(d2.commands).toEqual(['ReturnStock']);
    expect(d2.saga.payment.step).toBeNull();
    const stockBack = run(a, returned()).saga;
    expect(apply(stockBack, { type: 'DeadlinePassed', id: id() }).commands).toEqual([]);
  });

  it('a return inventory cannot make (nothing committed) ends the cancel with its code', () => {
    const a = run(confirmedSaga(), cancel, refunded(), {
      type: 'StockReturnFailed',
      id: id(),
      code: 'INVENTORY.NOT_COMMITTED',
    });
    expect(a.saga).toMatchObject({
      state: 'CANCELLED',
      stock: { return: 'failed', failure: 'INVENTORY.NOT_COMMITTED' },
    });
    expect(a.commands).toEqual(['ReturnStock', 'OrderCancelled:CANCELLED_BY_USER:after']);
  });

  it('cancel while waiting for stock: released at once, cancelled before confirmation', () => {
    const r = run(startSaga(t0, t), cancel);
    expect(r.saga).toMatchObject({ state: 'CANCELLED', reason: 'CANCELLED_BY_USER', deadline: null });
    expect(r.commands).toEqual(['ReleaseStock', 'OrderCancelled:CANCELLED_BY_USER:before']);
    // The reservation that arrives afterwards is released again.
    expect(run(r.saga, reserved()).commands).toEqual(['ReleaseStock']);
  });

  it('cancel while paying: refund first during the sale (it may have gone through), falling back to a void; release', () => {
    const paying = run(startSaga(t0, t), reserved()).saga;
    const s = run(paying, cancel);
    expect(s.saga).toMatchObject({ state: 'CANCELLING', reason: 'CANCELLED_BY_USER', payment: { step: 'REFUND' } });
    expect(s.commands).toEqual(['ReleaseStock']);
    expect(run(s.saga, voided()).commands).toEqual(['OrderCancelled:CANCELLED_BY_USER:before']);
  });

  it('cancel while paying in two steps (an order armed before the sale): void (or refund once capturing) and release', () => {
    const authorizing = twoStep(run(startSaga(t0, t), reserved()).saga);
    const a = run(authorizing, cancel);
    expect(a.saga).toMatchObject({
      state: 'CANCELLING',
      reason: 'CANCELLED_BY_USER',
      payment: { step: 'VOID' },
    });
    expect(a.commands).toEqual(['ReleaseStock']);
    expect(run(a.saga, voided()).commands).toEqual(['OrderCancelled:CANCELLED_BY_USER:before']);
    const capturing = run(authorizing, authorized()).saga;
    expect(run(capturing, cancel).saga.payment.step).toBe('REFUND');
  });

  it('cancel while committing is remembered: a commit becomes refund + return, never a confirmation', () => {
    const a = apply(committingSaga(), cancel);
    expect(a.saga).toMatchObject({ state: 'COMMITTING', cancel_requested: { at: t0, by: alice } });
    expect(a.commands).toEqual([]);
    const c = apply(a.saga, committed());
    expect(c.saga).toMatchObject({
      state: 'CANCELLING',
      reason: 'CANCELLED_BY_USER',
      payment: { step: 'REFUND' },
      stock: { return: 'pending' },
      cancel_requested: null,
    });
    expect(c.commands).toEqual(['ReturnStock']);
    const done = run(c.saga, refunded(), returned());
    // Never confirmed: the cart reopens (after_confirmation false), the money and the units came back.
    expect(done.commands).toEqual(['OrderCancelled:CANCELLED_BY_USER:before']);
    // A failed commit keeps its own reason; the money still goes back.
    const f = apply(a.saga, { type: 'StockCommitFailed', id: id(), code: 'INVENTORY.RESERVATION_EXPIRED' });
    expect(f.saga).toMatchObject({
      state: 'CANCELLING',
      reason: 'COMMIT_FAILED',
      payment: { step: 'REFUND' },
    });
  });

  describe('who did it (audit)', () => {
    /** The OrderCancelled a run of inputs ends with, with the actor it carries. */
    const cancelledEvent = (saga: Saga, ...inputs: SagaInput[]) => {
      for (const input of inputs) {
        const d = decide(saga, input, t0, t);
        if (d.kind !== 'apply') continue;
        saga = d.saga;
        const c = d.commands.find((x) => x.type === 'OrderCancelled');
        if (c) return { saga, event: c };
      }
      return { saga, event: undefined };
    };

    it('every transition records its actor: the caller of an HTTP action, else the system part', () => {
      const s = run(confirmedSaga(), deliver, complete).saga;
      expect(s.history.map((h) => `${h.event}:${h.by?.sub}:${h.by?.role}`)).toEqual([
        'StockReserved:inventory:system',
        'PaymentCaptured:orders:payment-worker:system',
        `DeliveryStarted:${otto.sub}:operator`,
        `DeliveryCompleted:${otto.sub}:operator`,
      ]);
      const late = run(startSaga(t0, t), { type: 'DeadlinePassed', id: id() }).saga;
      expect(late.history[0]?.by).toEqual(SYSTEM_ACTORS.deadline);
      // the reconciliation finding money still held re-arms the reversal in its own name
      const cancelled = run(
        startSaga(t0, t),
        reserved(),
        sold(),
        { type: 'StockCommitFailed', id: id(), code: 'X' },
        refunded(),
      ).saga;
      expect(cancelled.state).toBe('CANCELLED');
      const rearmed = apply(cancelled, { type: 'PaymentMismatchFound', id: id(), missing: 'REFUND' }).saga;
      expect(rearmed.history.at(-1)).toMatchObject({
        event: 'PaymentMismatchFound',
        by: SYSTEM_ACTORS.reconciliation,
      });
    });

    it("the customer's cancel: CANCELLED_BY_USER, and OrderCancelled names the customer", () => {
      const { saga, event } = cancelledEvent(confirmedSaga(), cancel, refunded(), returned());
      expect(saga.reason).toBe('CANCELLED_BY_USER');
      expect(saga.history.find((h) => h.event === 'CancelRequested')?.by).toEqual(alice);
      expect(event).toEqual({
        type: 'OrderCancelled',
        reason: 'CANCELLED_BY_USER',
        after_confirmation: true,
        by: alice,
      });
    });

    it("support's cancel in every state: CANCELLED_BY_SUPPORT, and OrderCancelled names support — even when the refund and the return finish it", () => {
      const waitingForStock = cancelledEvent(startSaga(t0, t), cancelBySupport);
      expect(waitingForStock.event).toMatchObject({ reason: 'CANCELLED_BY_SUPPORT', by: sue });
      const paying = run(startSaga(t0, t), reserved(), authorized()).saga;
      expect(cancelledEvent(paying, cancelBySupport, voided()).event).toMatchObject({
        reason: 'CANCELLED_BY_SUPPORT',
        by: sue,
      });
      const confirmed = cancelledEvent(confirmedSaga(), cancelBySupport, refunded(), returned());
      expect(confirmed.saga.reason).toBe('CANCELLED_BY_SUPPORT');
      expect(confirmed.event).toMatchObject({
        reason: 'CANCELLED_BY_SUPPORT',
        after_confirmation: true,
        by: sue,
      });
      // remembered while committing, acted on when inventory answers: still support's decision
      const committing = cancelledEvent(
        committingSaga(),
        cancelBySupport,
        committed(),
        refunded(),
        returned(),
      );
      expect(committing.saga.reason).toBe('CANCELLED_BY_SUPPORT');
      expect(committing.event).toMatchObject({ reason: 'CANCELLED_BY_SUPPORT', by: sue });
    });

    it('a cancellation the system decides names the part that decided it, not the input that finished it', () => {
      const paying = run(startSaga(t0, t), reserved(), authorized()).saga;
      const deadline = cancelledEvent(paying, { type: 'DeadlinePassed', id: id() }, voided());
      expect(deadline.event).toMatchObject({
        reason: 'PAYMENT_DEADLINE_EXCEEDED',
        by: SYSTEM_ACTORS.deadline,
      });
      const declined = cancelledEvent(run(startSaga(t0, t), reserved()).saga, {
        type: 'PaymentDeclined',
        id: `${ORDER}:authorize`,
        code: 'DECLINED',
      });
      expect(declined.event).toMatchObject({ reason: 'PAYMENT_DECLINED', by: SYSTEM_ACTORS.payment });
      const rejected = cancelledEvent(startSaga(t0, t), {
        type: 'StockRejected',
        id: id(),
        code: 'INVENTORY.INSUFFICIENT_STOCK',
      });
      expect(rejected.event).toMatchObject({ reason: 'STOCK_REJECTED', by: SYSTEM_ACTORS.inventory });
    });
  });
});
