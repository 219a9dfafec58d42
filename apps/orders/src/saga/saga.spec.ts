import { decide, Saga, SagaInput, SagaTimeouts, startSaga, statusOf } from './saga';

const t: SagaTimeouts = { stockMs: 1000, paymentMs: 2000, commitMs: 3000, cancelMs: 4000 };
const t0 = new Date('2026-11-21T10:00:00Z');
const later = (ms: number) => new Date(t0.getTime() + ms);
let n = 0;
const id = () => `m-${++n}`;

function run(saga: Saga, ...inputs: SagaInput[]): { saga: Saga; commands: string[] } {
  const commands: string[] = [];
  for (const input of inputs) {
    const d = decide(saga, input, t0, t);
    if (d.kind === 'apply') {
      saga = d.saga;
      commands.push(...d.commands.map((c) => (c.type === 'OrderCancelled' ? `OrderCancelled:${c.reason}` : c.type)));
    }
  }
  return { saga, commands };
}

const reserved = (): SagaInput => ({ type: 'StockReserved', id: id(), expires_at: later(60_000) });
/** An order whose saga armed the two-step payment before the sale (ADR 0015 §11): AUTHORIZE, then CAPTURE. */
const twoStep = (saga: Saga): Saga => ({ ...saga, payment: { ...saga.payment, step: 'AUTHORIZE' } });

describe('checkout saga transitions', () => {
  it('happy path: reserved → one sale (authorize + capture) confirms, the stock sale (CommitStock) sent with it, answered only on failure', () => {
    const paying = run(startSaga(t0, t), reserved()).saga;
    expect(paying.payment).toMatchObject({ step: 'SALE', authorized: false, captured: false });
    const captured = decide(paying, { type: 'PaymentCaptured', id: id(), authorization_id: 'a-1' }, t0, t);
    expect(captured).toMatchObject({
      kind: 'apply',
      saga: { state: 'CONFIRMED', deadline: null, payment: { authorized: true, authorization_id: 'a-1', captured: true, step: null } },
      commands: [{ type: 'CommitStock', reply: 'failure_only' }, { type: 'OrderConfirmed' }],
    });
    const r = run(captured.kind === 'apply' ? captured.saga : paying, { type: 'StockCommitted', id: id() });
    expect(r.commands).toEqual([]); // a StockCommitted (an older inventory answering anyway) changes nothing
    expect(r.saga.history.map((h) => `${h.from}>${h.to}`)).toEqual([
      'AWAITING_STOCK>AWAITING_PAYMENT',
      'AWAITING_PAYMENT>CONFIRMED',
    ]);
    expect(statusOf(r.saga.state)).toBe('confirmed');
  });

  it('an order armed before the sale pays in two steps: authorized → CAPTURE → captured confirms', () => {
    const authorizing = twoStep(run(startSaga(t0, t), reserved()).saga);
    const paid = run(authorizing, { type: 'PaymentAuthorized', id: id(), authorization_id: 'a-1' }).saga;
    expect(paid).toMatchObject({ state: 'AWAITING_PAYMENT', payment: { step: 'CAPTURE', authorized: true, authorization_id: 'a-1' } });
    const r = run(paid, { type: 'PaymentCaptured', id: id() });
    expect(r.saga).toMatchObject({ state: 'CONFIRMED', payment: { authorization_id: 'a-1', captured: true, step: null } });
    expect(r.commands).toEqual(['CommitStock', 'OrderConfirmed']);
  });

  it('stock rejected: cancelled with STOCK_REJECTED, nothing to release', () => {
    const r = run(startSaga(t0, t), { type: 'StockRejected', id: id(), code: 'INVENTORY.INSUFFICIENT_STOCK' });
    expect(r.saga).toMatchObject({ state: 'CANCELLED', reason: 'STOCK_REJECTED', stock: { failure: 'INVENTORY.INSUFFICIENT_STOCK' } });
    expect(r.commands).toEqual(['OrderCancelled:STOCK_REJECTED']);
  });

  it('payment declined: stock released, cancelled with PAYMENT_DECLINED', () => {
    const r = run(startSaga(t0, t), reserved(), { type: 'PaymentDeclined', id: id(), code: 'CARD_DECLINED' });
    expect(r.saga).toMatchObject({ state: 'CANCELLED', reason: 'PAYMENT_DECLINED', payment: { decline_code: 'CARD_DECLINED', step: null } });
    expect(r.commands).toEqual(['ReleaseStock', 'OrderCancelled:PAYMENT_DECLINED']);
  });

  it('stock deadline: releases whatever inventory may reserve and cancels', () => {
    const r = run(startSaga(t0, t), { type: 'DeadlinePassed', id: id() });
    expect(r.saga.reason).toBe('STOCK_DEADLINE_EXCEEDED');
    expect(r.commands).toEqual(['ReleaseStock', 'OrderCancelled:STOCK_DEADLINE_EXCEEDED']);
  });

  it('payment deadline during the sale: refund first (the sale may have gone through), release, cancelled once reversed', () => {
    const mid = run(startSaga(t0, t), reserved(), { type: 'DeadlinePassed', id: id() });
    expect(mid.saga).toMatchObject({ state: 'CANCELLING', reason: 'PAYMENT_DEADLINE_EXCEEDED', payment: { step: 'REFUND' } });
    expect(mid.commands).toEqual(['ReleaseStock']);
    // nothing was captured: the step's refund fell back to a void, which also blocks a late sale
    const end = run(mid.saga, { type: 'PaymentReversed', id: id(), how: 'voided' });
    expect(end.saga).toMatchObject({ state: 'CANCELLED', payment: { reversed: 'voided', step: null } });
    expect(end.commands).toEqual(['OrderCancelled:PAYMENT_DEADLINE_EXCEEDED']);
  });

  it('payment deadline during authorize (an order armed before the sale): void, release, then cancelled once reversed', () => {
    const mid = run(twoStep(run(startSaga(t0, t), reserved()).saga), { type: 'DeadlinePassed', id: id() });
    expect(mid.saga).toMatchObject({ state: 'CANCELLING', reason: 'PAYMENT_DEADLINE_EXCEEDED', payment: { step: 'VOID' } });
    expect(mid.commands).toEqual(['ReleaseStock']);
    const end = run(mid.saga, { type: 'PaymentReversed', id: id(), how: 'voided' });
    expect(end.saga).toMatchObject({ state: 'CANCELLED', payment: { reversed: 'voided', step: null } });
    expect(end.commands).toEqual(['OrderCancelled:PAYMENT_DEADLINE_EXCEEDED']);
  });

  it('payment deadline during capture: refund (the capture may have gone through)', () => {
    const r = run(twoStep(run(startSaga(t0, t), reserved()).saga), { type: 'PaymentAuthorized', id: id(), authorization_id: 'a' }, { type: 'DeadlinePassed', id: id() });
    expect(r.saga.payment.step).toBe('REFUND');
  });

  it('the payment deadline ends a commit window before the hold expires (at most half the hold)', () => {
    const deadlineFor = (holdMs: number) =>
      run(startSaga(t0, t), { type: 'StockReserved', id: id(), expires_at: later(holdMs) }).saga.deadline;
    expect(deadlineFor(60_000)).toEqual(later(2000)); // the payment wait (2 s) ends well before 60 s − 3 s
    expect(deadlineFor(4000)).toEqual(later(2000)); // 4 s − min(3 s, 2 s)
    expect(deadlineFor(3000)).toEqual(later(1500)); // 3 s − min(3 s, 1.5 s)
    expect(deadlineFor(500)).toEqual(later(250));
  });

  it('the sale of a confirmed order failed: refund, nothing to return, cancelled with COMMIT_FAILED after confirmation', () => {
    const confirmed = run(startSaga(t0, t), reserved(), { type: 'PaymentAuthorized', id: id(), authorization_id: 'a' }, { type: 'PaymentCaptured', id: id() });
    expect(confirmed.saga.state).toBe('CONFIRMED');
    const failed = decide(confirmed.saga, { type: 'StockCommitFailed', id: id(), code: 'INVENTORY.RESERVATION_EXPIRED' }, t0, t);
    expect(failed).toMatchObject({ kind: 'apply', commands: [] }); // no ReturnStock: nothing was sold
    const r = run(confirmed.saga, { type: 'StockCommitFailed', id: id(), code: 'INVENTORY.RESERVATION_EXPIRED' });
    expect(r.saga).toMatchObject({ state: 'CANCELLING', reason: 'COMMIT_FAILED', payment: { step: 'REFUND' }, stock: { failure: 'INVENTORY.RESERVATION_EXPIRED' } });
    const end = decide(r.saga, { type: 'PaymentReversed', id: id(), how: 'refunded' }, t0, t);
    expect(end).toMatchObject({
      kind: 'apply',
      saga: { state: 'CANCELLED' },
      commands: [{ type: 'OrderCancelled', reason: 'COMMIT_FAILED', after_confirmation: true }],
    });
  });

  it('a failed sale of an order already out for delivery is recorded on it for support, not undone', () => {
    const confirmed = run(startSaga(t0, t), reserved(), { type: 'PaymentAuthorized', id: id(), authorization_id: 'a' }, { type: 'PaymentCaptured', id: id() }).saga;
    const delivering = run(confirmed, { type: 'DeliveryStarted', id: id(), by: { sub: 'op', role: 'operator' } }).saga;
    const r = run(delivering, { type: 'StockCommitFailed', id: id(), code: 'INVENTORY.RESERVATION_EXPIRED' });
    expect(r.saga).toMatchObject({ state: 'DELIVERING', stock: { failure: 'INVENTORY.RESERVATION_EXPIRED' } });
    expect(r.commands).toEqual([]);
  });

  describe('an order left COMMITTING by the earlier saga (captured before the sale rode with the confirmation)', () => {
    const committing = (): Saga => {
      const paid = run(startSaga(t0, t), reserved(), { type: 'PaymentAuthorized', id: id(), authorization_id: 'a' }).saga;
      return { ...paid, state: 'COMMITTING', deadline: later(3000), payment: { ...paid.payment, step: null, next_at: null, captured: true } };
    };

    it('StockCommitted confirms it; StockCommitFailed refunds it', () => {
      expect(run(committing(), { type: 'StockCommitted', id: id() })).toMatchObject({ saga: { state: 'CONFIRMED' }, commands: ['OrderConfirmed'] });
      expect(run(committing(), { type: 'StockCommitFailed', id: id(), code: 'x' }).saga).toMatchObject({ state: 'CANCELLING', reason: 'COMMIT_FAILED', payment: { step: 'REFUND' } });
    });

    it('its deadline never cancels: CommitStock (answered) is sent again and the wait extended', () => {
      const d = decide(committing(), { type: 'DeadlinePassed', id: id() }, t0, t);
      expect(d).toMatchObject({ kind: 'apply', saga: { state: 'COMMITTING' }, commands: [{ type: 'CommitStock' }] });
      expect(d.kind === 'apply' && d.commands[0]).not.toHaveProperty('reply');
    });
  });

  it('a StockReserved after the saga was compensated releases again; a repeated message id changes nothing', () => {
    const cancelled = run(startSaga(t0, t), { type: 'DeadlinePassed', id: id() }).saga;
    const late = reserved();
    const once = run(cancelled, late);
    expect(once.commands).toEqual(['ReleaseStock']);
    expect(once.saga.state).toBe('CANCELLED');
    expect(run(once.saga, late).commands).toEqual([]);
  });

  it('ignores duplicates, stale payment outcomes and replies a state does not accept', () => {
    const s = run(startSaga(t0, t), reserved()).saga;
    expect(decide(s, reserved(), t0, t).kind).toBe('ignore');
    // outcomes of the two-step payment are stale for a sale, and the other way round
    expect(decide(s, { type: 'PaymentAuthorized', id: id(), authorization_id: 'a' }, t0, t).kind).toBe('ignore');
    expect(decide(s, { type: 'PaymentCaptureFailed', id: id(), code: 'x' }, t0, t).kind).toBe('ignore');
    expect(decide(twoStep(s), { type: 'PaymentCaptured', id: id() }, t0, t).kind).toBe('ignore');
    expect(decide(s, { type: 'StockCommitted', id: id() }, t0, t).kind).toBe('ignore');
    const confirmed = run(s, { type: 'PaymentCaptured', id: id(), authorization_id: 'a' }).saga;
    for (const input of [reserved(), { type: 'StockCommitted', id: id() }, { type: 'DeadlinePassed', id: id() }] as SagaInput[]) {
      expect(decide(confirmed, input, t0, t).kind).toBe('ignore');
    }
  });
});
