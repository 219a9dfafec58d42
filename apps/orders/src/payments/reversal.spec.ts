import { decide, Saga, SagaInput, SagaTimeouts, startSaga } from '../saga/saga';
import type { PaymentGateway, PaymentOperation, PaymentRequest } from './payment-gateway';
import { performPaymentStep } from './payment-step';
import { missingReversal } from './reconciliation';
import { applyOperation, PspOutcome, PspPayment, SimulatorRules } from './simulator/psp-rules';

const t: SagaTimeouts = { stockMs: 1000, paymentMs: 2000, commitMs: 3000, cancelMs: 4000 };
const t0 = new Date('2026-11-25T10:00:00Z');
const ORDER = '56e540608eca05a5f7400db0';

function run(saga: Saga, ...inputs: SagaInput[]): { saga: Saga; commands: string[] } {
  const commands: string[] = [];
  for (const input of inputs) {
    const d = decide(saga, input, t0, t);
    if (d.kind !== 'apply') continue;
    saga = d.saga;
    commands.push(...d.commands.map((c) => c.type));
  }
  return { saga, commands };
}

const reserved: SagaInput = { type: 'StockReserved', id: 'm1', expires_at: new Date(t0.getTime() + 60_000) };
const authorized: SagaInput = { type: 'PaymentAuthorized', id: `${ORDER}:authorize`, authorization_id: 'a' };
const deadline: SagaInput = { type: 'DeadlinePassed', id: 'deadline:AWAITING_PAYMENT' };
/** Paying (the capture in flight), then the payment deadline: CANCELLING with a REFUND step, round 0. */
const reversing = (): Saga => run(startSaga(t0, t), reserved, authorized, deadline).saga;
const contradicted = (round: number, next: 'VOID' | 'REFUND' = 'REFUND'): SagaInput => ({
  type: 'PaymentReversalContradicted',
  id: `${ORDER}:reversal-contradicted:r${round}`,
  round,
  next,
});

describe('payment reversal rounds (saga)', () => {
  it('a contradiction starts the next round with the step the latest answer points to; only a positive answer ends the cancellation', () => {
    const s0 = reversing();
    expect(s0.payment).toMatchObject({ step: 'REFUND', reversed: null });
    const s1 = run(s0, contradicted(0)).saga;
    expect(s1.state).toBe('CANCELLING');
    expect(s1.payment).toMatchObject({ step: 'REFUND', round: 1, reversed: null, next_at: t0 });
    const done = run(s1, { type: 'PaymentReversed', id: `${ORDER}:refund:r1`, how: 'refunded' });
    expect(done.saga).toMatchObject({ state: 'CANCELLED', payment: { reversed: 'refunded', step: null } });
    expect(done.commands).toEqual(['OrderCancelled']);
  });

  it('a stale contradiction (an earlier round answered again) changes nothing', () => {
    const s1 = run(reversing(), contradicted(0)).saga;
    expect(decide(s1, { ...contradicted(0), id: 'another-copy' }, t0, t)).toMatchObject({ kind: 'ignore' });
  });

  it('the reconciliation re-arms a cancelled order once per round, and the second cancellation is not announced again', () => {
    const cancelled = run(reversing(), { type: 'PaymentReversed', id: `${ORDER}:void`, how: 'voided' }).saga;
    expect(cancelled.state).toBe('CANCELLED');
    const mismatch: SagaInput = {
      type: 'PaymentMismatchFound',
      id: `reconcile:${ORDER}:r0`,
      missing: 'REFUND',
    };
    const rearmed = run(cancelled, mismatch);
    expect(rearmed.saga).toMatchObject({
      state: 'CANCELLING',
      reason: 'PAYMENT_DEADLINE_EXCEEDED',
      payment: { step: 'REFUND', round: 1, reversed: null },
    });
    expect(rearmed.saga.deadline).toEqual(new Date(t0.getTime() + t.cancelMs));
    expect(decide(rearmed.saga, mismatch, t0, t)).toMatchObject({ kind: 'ignore' });
    const again = run(rearmed.saga, { type: 'PaymentReversed', id: `${ORDER}:refund:r1`, how: 'refunded' });
    expect(again.saga).toMatchObject({ state: 'CANCELLED', payment: { reversed: 'refunded' } });
    expect(again.commands).toEqual([]);
  });

  it('a mismatch while the reversal is still running is the worker’s business', () => {
    expect(
      decide(reversing(), { type: 'PaymentMismatchFound', id: 'reconcile:x:r0', missing: 'REFUND' }, t0, t),
    ).toMatchObject({ kind: 'ignore' });
  });
});

describe('missingReversal (the reconciliation rule)', () => {
  const cancelled = run(reversing(), { type: 'PaymentReversed', id: `${ORDER}:void`, how: 'voided' }).saga;
  it.each([
    ['authorized', 'VOID'],
    ['captured', 'REFUND'],
    ['voided', null],
    ['refunded', null],
    ['declined', null],
    [null, null],
  ] as const)('a cancelled order whose PSP state is %s needs %s', (psp, missing) => {
    expect(missingReversal(cancelled, psp)).toBe(missing);
  });
  it('judges nothing while a reversal is in progress or the order is not cancelled', () => {
    expect(missingReversal(reversing(), 'captured')).toBeNull();
    expect(missingReversal(startSaga(t0, t), 'captured')).toBeNull();
  });
});

/** The PSP simulator's rules in memory, one payment reference. */
class RulesPsp implements PaymentGateway {
  payment: PspPayment | null = {
    status: 'authorized',
    amount: 100,
    authorization_id: 'a',
    decline_code: null,
  };
  readonly calls: string[] = [];
  constructor(
    private readonly rules: SimulatorRules,
    private readonly onRefund?: () => void,
  ) {}
  private run(op: PaymentOperation, r: PaymentRequest): Promise<never> {
    const { next, outcome } = applyOperation(this.payment, op, r, this.rules, () => 'a');
    if (next) this.payment = next;
    this.calls.push(`${r.idempotencyKey}=${(outcome as PspOutcome).status}`);
    if (op === 'refund') this.onRefund?.();
    return Promise.resolve(outcome as never);
  }
  authorize = (r: PaymentRequest) => this.run('authorize', r);
  capture = (r: PaymentRequest) => this.run('capture', r);
  sale = (r: PaymentRequest) => this.run('sale', r);
  void = (r: PaymentRequest) => this.run('void', r);
  refund = (r: PaymentRequest) => this.run('refund', r);
  status = () => Promise.resolve(this.payment?.status ?? null);
}

const rules: SimulatorRules = {
  declineAmountFrom: null,
  declineTokens: [],
  declineUsers: [],
  hangUsers: [],
  lateCaptureUsers: ['late'],
  latencyMinMs: 0,
  latencyMaxMs: 0,
  transientErrorRate: 0,
  timeoutRate: 0,
};
const subject = (userId: string) => ({ orderId: ORDER, amount: 100, userId, cardToken: 'tok' });

describe('performPaymentStep: reversal answers', () => {
  it('REFUND: not_captured then already_captured is a contradiction (next: REFUND), never "voided"', async () => {
    const psp = new RulesPsp(rules);
    psp.payment = { ...psp.payment!, pending_capture: true }; // the late capture lands after the refund's answer
    const outcome = await performPaymentStep(psp, subject('late'), 'REFUND', 0);
    expect(outcome).toEqual(contradicted(0, 'REFUND'));
    expect(psp.calls).toEqual([`${ORDER}:refund=not_captured`, `${ORDER}:void=already_captured`]);
    const next = await performPaymentStep(psp, subject('late'), 'REFUND', 1);
    expect(next).toEqual({ type: 'PaymentReversed', id: `${ORDER}:refund:r1`, how: 'refunded' });
    expect(psp.payment?.status).toBe('refunded');
  });

  it('VOID: already_captured then not_captured is a contradiction (next: VOID), never "refunded"', async () => {
    const psp = new RulesPsp(rules);
    psp.payment = { ...psp.payment!, status: 'captured' };
    // A PSP whose refund says "nothing captured" although the void said "captured" (its views disagree).
    psp.refund = (r: PaymentRequest) => {
      psp.calls.push(`${r.idempotencyKey}=not_captured`);
      return Promise.resolve({ status: 'not_captured' } as never);
    };
    expect(await performPaymentStep(psp, subject('u'), 'VOID', 2)).toEqual(contradicted(2, 'VOID'));
    expect(psp.calls).toEqual([`${ORDER}:void:r2=already_captured`, `${ORDER}:refund:r2=not_captured`]);
  });

  it('a late capture is answered as lost and a void before the refund cancels it', async () => {
    const psp = new RulesPsp(rules);
    const late = applyOperation(
      psp.payment,
      'capture',
      { amount: 100, cardToken: 'tok', userId: 'late' },
      rules,
      () => 'a',
    );
    expect(late).toMatchObject({ late: true, next: { status: 'authorized', pending_capture: true } });
    psp.payment = late.next;
    expect(await performPaymentStep(psp, subject('late'), 'VOID', 0)).toEqual({
      type: 'PaymentReversed',
      id: `${ORDER}:void`,
      how: 'voided',
    });
    expect(psp.payment).toMatchObject({ status: 'voided', pending_capture: false });
  });
});
