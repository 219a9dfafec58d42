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

describe('checkout saga transitions', () => {
  it('happy path: reserved → authorize → capture → CommitStock → confirmed', () => {
    const r = run(
      startSaga(t0, t),
      reserved(),
      { type: 'PaymentAuthorized', id: id(), authorization_id: 'a-1' },
      { type: 'PaymentCaptured', id: id() },
      { type: 'StockCommitted', id: id() },
    );
    expect(r.saga.state).toBe('CONFIRMED');
    expect(r.saga.deadline).toBeNull();
    expect(r.commands).toEqual(['CommitStock', 'OrderConfirmed']);
    expect(r.saga.history.map((h) => `${h.from}>${h.to}`)).toEqual([
      'AWAITING_STOCK>AWAITING_PAYMENT',
      'AWAITING_PAYMENT>AWAITING_PAYMENT',
      'AWAITING_PAYMENT>COMMITTING',
      'COMMITTING>CONFIRMED',
    ]);
    expect(statusOf(r.saga.state)).toBe('confirmed');
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

  it('payment deadline during authorize: void, release, then cancelled once reversed', () => {
    const mid = run(startSaga(t0, t), reserved(), { type: 'DeadlinePassed', id: id() });
    expect(mid.saga).toMatchObject({ state: 'CANCELLING', reason: 'PAYMENT_DEADLINE_EXCEEDED', payment: { step: 'VOID' } });
    expect(mid.commands).toEqual(['ReleaseStock']);
    const end = run(mid.saga, { type: 'PaymentReversed', id: id(), how: 'voided' });
    expect(end.saga).toMatchObject({ state: 'CANCELLED', payment: { reversed: 'voided', step: null } });
    expect(end.commands).toEqual(['OrderCancelled:PAYMENT_DEADLINE_EXCEEDED']);
  });

  it('payment deadline during capture: refund (the capture may have gone through)', () => {
    const r = run(startSaga(t0, t), reserved(), { type: 'PaymentAuthorized', id: id(), authorization_id: 'a' }, { type: 'DeadlinePassed', id: id() });
    expect(r.saga.payment.step).toBe('REFUND');
  });

  it('payment deadline is capped by the reservation expiry', () => {
    const r = run(startSaga(t0, t), { type: 'StockReserved', id: id(), expires_at: later(500) });
    expect(r.saga.deadline).toEqual(later(500));
  });

  it('commit failed after capture: refund and cancel with COMMIT_FAILED', () => {
    const paid = run(startSaga(t0, t), reserved(), { type: 'PaymentAuthorized', id: id(), authorization_id: 'a' }, { type: 'PaymentCaptured', id: id() });
    const r = run(paid.saga, { type: 'StockCommitFailed', id: id(), code: 'INVENTORY.RESERVATION_EXPIRED' });
    expect(r.saga).toMatchObject({ state: 'CANCELLING', reason: 'COMMIT_FAILED', payment: { step: 'REFUND' }, stock: { failure: 'INVENTORY.RESERVATION_EXPIRED' } });
    expect(run(r.saga, { type: 'PaymentReversed', id: id(), how: 'refunded' }).commands).toEqual(['OrderCancelled:COMMIT_FAILED']);
  });

  it('commit deadline never cancels: CommitStock is sent again and the wait extended', () => {
    const paid = run(startSaga(t0, t), reserved(), { type: 'PaymentAuthorized', id: id(), authorization_id: 'a' }, { type: 'PaymentCaptured', id: id() });
    const r = run(paid.saga, { type: 'DeadlinePassed', id: id() });
    expect(r.saga.state).toBe('COMMITTING');
    expect(r.commands).toEqual(['CommitStock']);
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
    expect(decide(s, { type: 'PaymentCaptured', id: id() }, t0, t).kind).toBe('ignore');
    expect(decide(s, { type: 'StockCommitted', id: id() }, t0, t).kind).toBe('ignore');
    const confirmed = run(s, { type: 'PaymentAuthorized', id: id(), authorization_id: 'a' }, { type: 'PaymentCaptured', id: id() }, { type: 'StockCommitted', id: id() }).saga;
    for (const input of [reserved(), { type: 'StockCommitFailed', id: id(), code: 'x' }, { type: 'DeadlinePassed', id: id() }] as SagaInput[]) {
      expect(decide(confirmed, input, t0, t).kind).toBe('ignore');
    }
  });
});
