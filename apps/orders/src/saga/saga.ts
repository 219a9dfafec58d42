/**
 * The checkout saga of one order, as a pure transition function (no Nest, no driver, no clock):
 * `decide(saga, input, now, timeouts)` → the next saga and the commands to emit, or "ignore".
 * The orders service persists the result with one conditional write (state + version guard) that
 * also stores the outgoing messages (outbox), so a transition and its messages are atomic.
 *
 *   AWAITING_STOCK ──StockReserved──► AWAITING_PAYMENT (AUTHORIZE ──authorized──► CAPTURE)
 *        │                                 │ captured ─────────────► COMMITTING ──StockCommitted──► CONFIRMED
 *        │ StockRejected / deadline        │ declined                     │ StockCommitFailed
 *        ▼                                 ▼                              ▼
 *     CANCELLED ◄───────────────────── CANCELLED / CANCELLING (void | refund) ──reversed──► CANCELLED
 *
 * CANCELLING is entered only when money may have moved (an authorization or a capture to undo);
 * otherwise a cancellation goes straight to CANCELLED. Every non-terminal state has a deadline.
 */
export type SagaState = 'AWAITING_STOCK' | 'AWAITING_PAYMENT' | 'COMMITTING' | 'CONFIRMED' | 'CANCELLING' | 'CANCELLED';

/** Subset of the OrderCancelled reasons (libs/contracts) the saga produces. */
export type CancelReason = 'STOCK_REJECTED' | 'PAYMENT_DECLINED' | 'STOCK_DEADLINE_EXCEEDED' | 'PAYMENT_DEADLINE_EXCEEDED' | 'COMMIT_FAILED';

/** Work the payment worker must perform for this order (null: none). */
export type PaymentStep = 'AUTHORIZE' | 'CAPTURE' | 'VOID' | 'REFUND';

export interface PaymentState {
  readonly step: PaymentStep | null;
  /** When the worker may (re)try the step; null when there is no step. Also its lease and its backoff. */
  readonly next_at: Date | null;
  readonly attempts: number;
  readonly authorization_id: string | null;
  readonly authorized: boolean;
  readonly captured: boolean;
  readonly reversed: 'voided' | 'refunded' | null;
  readonly decline_code: string | null;
}

export interface TransitionRecord {
  readonly from: SagaState;
  readonly to: SagaState;
  /** The input that caused it (message type, payment outcome or DeadlinePassed). */
  readonly event: SagaInput['type'];
  /** Id of the message / payment operation / deadline that caused it; a repeated cause is ignored. */
  readonly cause: string;
  readonly at: Date;
}

export interface Saga {
  readonly state: SagaState;
  readonly reason: CancelReason | null;
  /** Deadline of the current wait; null only in a terminal state. */
  readonly deadline: Date | null;
  readonly payment: PaymentState;
  readonly stock: { readonly reserved_until: Date | null; readonly failure: string | null };
  readonly history: readonly TransitionRecord[];
}

export type SagaInput =
  | { readonly type: 'StockReserved'; readonly id: string; readonly expires_at: Date }
  | { readonly type: 'StockRejected'; readonly id: string; readonly code: string }
  | { readonly type: 'StockCommitted'; readonly id: string }
  | { readonly type: 'StockCommitFailed'; readonly id: string; readonly code: string }
  | { readonly type: 'StockReleased'; readonly id: string }
  | { readonly type: 'PaymentAuthorized'; readonly id: string; readonly authorization_id: string }
  | { readonly type: 'PaymentDeclined'; readonly id: string; readonly code: string }
  | { readonly type: 'PaymentCaptured'; readonly id: string }
  | { readonly type: 'PaymentCaptureFailed'; readonly id: string; readonly code: string }
  | { readonly type: 'PaymentReversed'; readonly id: string; readonly how: 'voided' | 'refunded' }
  | { readonly type: 'DeadlinePassed'; readonly id: string };

/** What the orchestrator sends; turned into contract messages by the service. */
export type SagaCommand =
  | { readonly type: 'ReserveStock' }
  | { readonly type: 'ReleaseStock' }
  | { readonly type: 'CommitStock' }
  | { readonly type: 'OrderConfirmed' }
  | { readonly type: 'OrderCancelled'; readonly reason: CancelReason };

export type Decision =
  | { readonly kind: 'apply'; readonly saga: Saga; readonly commands: readonly SagaCommand[] }
  | { readonly kind: 'ignore'; readonly why: string };

export interface SagaTimeouts {
  /** Wait for StockReserved | StockRejected. */
  readonly stockMs: number;
  /** Authorize + capture, bounded also by the reservation's expiry. */
  readonly paymentMs: number;
  /** Wait for StockCommitted | StockCommitFailed (on expiry CommitStock is re-sent, never cancelled). */
  readonly commitMs: number;
  /** Void/refund; on expiry the payment step is re-armed. */
  readonly cancelMs: number;
}

export const TERMINAL: readonly SagaState[] = ['CONFIRMED', 'CANCELLED'];
export const isTerminal = (s: SagaState): boolean => TERMINAL.includes(s);

const noPayment: PaymentState = {
  step: null,
  next_at: null,
  attempts: 0,
  authorization_id: null,
  authorized: false,
  captured: false,
  reversed: null,
  decline_code: null,
};

/** A new saga: the order waits for its stock; the caller emits ReserveStock with it. */
export function startSaga(now: Date, t: SagaTimeouts): Saga {
  return {
    state: 'AWAITING_STOCK',
    reason: null,
    deadline: at(now, t.stockMs),
    payment: noPayment,
    stock: { reserved_until: null, failure: null },
    history: [],
  };
}

export const initialCommands: readonly SagaCommand[] = [{ type: 'ReserveStock' }];

/** Order status at the edge (ARCHITECTURE: pending → confirmed | cancelled). */
export function statusOf(state: SagaState): 'pending' | 'confirmed' | 'cancelled' {
  return state === 'CONFIRMED' ? 'confirmed' : state === 'CANCELLED' ? 'cancelled' : 'pending';
}

/** The transition table. Anything a state does not accept is an explained no-op. */
export function decide(saga: Saga, input: SagaInput, now: Date, t: SagaTimeouts): Decision {
  if (saga.history.some((h) => h.cause === input.id)) return ignore(`duplicate of ${input.id}`);
  const step = (to: SagaState, patch: Partial<Saga>, commands: SagaCommand[] = []): Decision => ({
    kind: 'apply',
    saga: { ...saga, ...patch, state: to, history: [...saga.history, { from: saga.state, to, event: input.type, cause: input.id, at: now }] },
    commands,
  });
  const cancelled = (reason: CancelReason, commands: SagaCommand[], patch: Partial<Saga> = {}): Decision =>
    step('CANCELLED', { reason, deadline: null, payment: { ...saga.payment, step: null, next_at: null }, ...patch }, [...commands, { type: 'OrderCancelled', reason }]);
  const cancelling = (reason: CancelReason, reverse: 'VOID' | 'REFUND', commands: SagaCommand[], patch: Partial<Saga> = {}): Decision =>
    step('CANCELLING', { reason, deadline: at(now, t.cancelMs), payment: { ...saga.payment, step: reverse, next_at: now, attempts: 0 }, ...patch }, commands);
  const pay = saga.payment;

  switch (saga.state) {
    case 'AWAITING_STOCK':
      switch (input.type) {
        case 'StockReserved': {
          // Never wait for payment past the reservation's expiry: the commit would fail anyway.
          const deadline = new Date(Math.min(now.getTime() + t.paymentMs, input.expires_at.getTime()));
          return step('AWAITING_PAYMENT', {
            deadline,
            stock: { ...saga.stock, reserved_until: input.expires_at },
            payment: { ...pay, step: 'AUTHORIZE', next_at: now, attempts: 0 },
          });
        }
        case 'StockRejected':
          return cancelled('STOCK_REJECTED', [], { stock: { ...saga.stock, failure: input.code } });
        case 'DeadlinePassed':
          // ReleaseStock follows ReserveStock on the same key, so inventory releases whatever it reserved.
          return cancelled('STOCK_DEADLINE_EXCEEDED', [{ type: 'ReleaseStock' }]);
        default:
          return ignore(`${input.type} in AWAITING_STOCK`);
      }
    case 'AWAITING_PAYMENT':
      switch (input.type) {
        case 'PaymentAuthorized':
          if (pay.step !== 'AUTHORIZE') return ignore('authorization outcome for a step no longer current');
          return step('AWAITING_PAYMENT', {
            payment: { ...pay, step: 'CAPTURE', next_at: now, attempts: 0, authorized: true, authorization_id: input.authorization_id },
          });
        case 'PaymentDeclined':
          if (pay.step !== 'AUTHORIZE') return ignore('decline for a step no longer current');
          return cancelled('PAYMENT_DECLINED', [{ type: 'ReleaseStock' }], { payment: { ...pay, step: null, next_at: null, decline_code: input.code } });
        case 'PaymentCaptured':
          if (pay.step !== 'CAPTURE') return ignore('capture outcome for a step no longer current');
          return step('COMMITTING', { deadline: at(now, t.commitMs), payment: { ...pay, step: null, next_at: null, captured: true } }, [{ type: 'CommitStock' }]);
        case 'PaymentCaptureFailed':
          if (pay.step !== 'CAPTURE') return ignore('capture failure for a step no longer current');
          return cancelling('PAYMENT_DECLINED', 'VOID', [{ type: 'ReleaseStock' }], {});
        case 'DeadlinePassed':
          // The outcome of an in-flight call is unknown: reverse whatever the step may have done.
          return cancelling('PAYMENT_DEADLINE_EXCEEDED', pay.step === 'CAPTURE' ? 'REFUND' : 'VOID', [{ type: 'ReleaseStock' }]);
        default:
          return ignore(`${input.type} in AWAITING_PAYMENT`);
      }
    case 'COMMITTING':
      switch (input.type) {
        case 'StockCommitted':
          return step('CONFIRMED', { deadline: null }, [{ type: 'OrderConfirmed' }]);
        case 'StockCommitFailed':
          // Paid, but the reservation is gone (expired or released): the money goes back.
          return cancelling('COMMIT_FAILED', 'REFUND', [], { stock: { ...saga.stock, failure: input.code } });
        case 'DeadlinePassed':
          // Inventory decides a commit once and for all (commands are ordered per order id), so
          // cancelling here could cancel a sale inventory made final. Ask again and keep waiting.
          return step('COMMITTING', { deadline: at(now, t.commitMs) }, [{ type: 'CommitStock' }]);
        default:
          return ignore(`${input.type} in COMMITTING`);
      }
    case 'CANCELLING':
      switch (input.type) {
        case 'PaymentReversed':
          if (pay.step !== 'VOID' && pay.step !== 'REFUND') return ignore('reversal outcome for a step no longer current');
          return step('CANCELLED', { deadline: null, payment: { ...pay, step: null, next_at: null, reversed: input.how } }, [
            { type: 'OrderCancelled', reason: saga.reason ?? 'PAYMENT_DECLINED' },
          ]);
        case 'StockReserved':
          return step('CANCELLING', {}, [{ type: 'ReleaseStock' }]);
        case 'DeadlinePassed':
          return step('CANCELLING', { deadline: at(now, t.cancelMs), payment: { ...pay, next_at: now, attempts: 0 } });
        default:
          return ignore(`${input.type} in CANCELLING`);
      }
    case 'CANCELLED':
      // A reservation that arrives after the saga was compensated is released again (idempotent).
      if (input.type === 'StockReserved') return step('CANCELLED', {}, [{ type: 'ReleaseStock' }]);
      return ignore(`${input.type} in CANCELLED`);
    case 'CONFIRMED':
      return ignore(`${input.type} in CONFIRMED`);
  }
}

function ignore(why: string): Decision {
  return { kind: 'ignore', why };
}

function at(now: Date, ms: number): Date {
  return new Date(now.getTime() + ms);
}
