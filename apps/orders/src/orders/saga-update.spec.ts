import { decide, Saga, SagaTimeouts, startSaga } from '../saga/saga';
import { sagaChanges } from './saga-update';

const t: SagaTimeouts = { stockMs: 60_000, paymentMs: 60_000, commitMs: 60_000, cancelMs: 60_000 };
const now = new Date('2026-11-30T10:00:00Z');

const applied = (saga: Saga, input: Parameters<typeof decide>[1]): Saga => {
  const d = decide(saga, input, now, t);
  if (d.kind !== 'apply') throw new Error(`not applied: ${d.kind}`);
  return d.saga;
};

describe('sagaChanges: what a transition writes of its saga (issue 31)', () => {
  const started = startSaga(new Date('2026-11-30T09:59:00Z'), t);
  const reserved = applied(started, { type: 'StockReserved', id: 'sr-1', expires_at: new Date('2026-11-30T10:15:00Z') });

  it('sets only the fields the step changed and appends its history record, not the history so far', () => {
    const c = sagaChanges(started, reserved);
    expect(Object.keys(c.set).sort()).toEqual(['saga.deadline', 'saga.payment', 'saga.state', 'saga.stock']);
    expect(c.set).toMatchObject({ 'saga.state': 'AWAITING_PAYMENT', 'saga.deadline': reserved.deadline, 'saga.stock': reserved.stock });
    expect(c.set).not.toHaveProperty('saga.reason'); // null before and after
    expect(c.appended).toEqual([reserved.history[0]]);
    expect(c.unset).toEqual([]);

    const confirmed = applied(reserved, { type: 'PaymentCaptured', id: 'ps-1', authorization_id: 'auth-1' });
    const next = sagaChanges(reserved, confirmed);
    expect(next.appended).toEqual([confirmed.history[1]]);
    expect(next.set).not.toHaveProperty('saga.history');
    expect(next.set).not.toHaveProperty('saga.stock'); // unchanged since StockReserved
  });

  it('counts equal dates and nested objects that are copies, not the same object, as unchanged', () => {
    const copy = structuredClone(reserved);
    expect(sagaChanges(reserved, copy)).toEqual({ set: {}, unset: [], appended: [] });
  });

  it('unsets a field the new saga no longer has', () => {
    const asked = { ...reserved, cancel_requested: { at: now, by: 'u1' } };
    const c = sagaChanges(asked, { ...reserved, cancel_requested: undefined });
    expect(c.unset).toEqual(['saga.cancel_requested']);
    expect(c.set).toEqual({});
  });

  it('writes the whole history when it was not only appended to', () => {
    const rewritten = { ...reserved, history: [{ ...reserved.history[0]!, cause: 'other' }] };
    const c = sagaChanges(reserved, rewritten);
    expect(c.set['saga.history']).toEqual(rewritten.history);
    expect(c.appended).toEqual([]);
  });
});
