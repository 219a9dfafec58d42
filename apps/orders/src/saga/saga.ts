/**
 * The life of one order, as a pure transition function (no Nest, no driver, no clock):
 * `decide(saga, input, now, timeouts)` → the next saga and the commands to emit, an explained
 * no-op, or a refusal (an HTTP action that the current state does not allow).
 * The orders service persists the result with one conditional write (state + version guard) that
 * also stores the outgoing messages (outbox), so a transition and its messages are atomic.
 *
 * The checkout saga:
 *
 *   AWAITING_STOCK ──StockReserved──► AWAITING_PAYMENT (SALE: authorize + capture in one PSP call)
 *        │                                 │ captured (+ CommitStock, reply failure_only) ──► CONFIRMED
 *        │ StockRejected / deadline        │ declined                                          │ StockCommitFailed
 *        ▼                                 ▼                                                   ▼
 *     CANCELLED ◄───────────────────── CANCELLED / CANCELLING (refund | void) ◄───────────── (refund)
 *
 * The captured payment confirms the order in the same write that sends the sale (CommitStock) to
 * inventory, which answers only a failure (ADR 0015 §3): the hold cannot expire first, because the
 * payment deadline ends a commit window before the hold does, and nothing else releases the hold of
 * an order on its way to CONFIRMED. Orders confirmed before that change went through COMMITTING
 * (CommitStock answered by StockCommitted → CONFIRMED); the state is kept for them. The payment is
 * one SALE step (ADR 0015 §11); orders armed before it pay in two (AUTHORIZE ──authorized──►
 * CAPTURE), which the table still accepts.
 *
 * After it (seed 002's statuses confirmed → delivering → completed):
 *
 *   CONFIRMED ──DeliveryStarted──► DELIVERING ──DeliveryCompleted──► COMPLETED
 *       │ CancelRequested (the customer, before delivery)
 *       ▼
 *   CANCELLING (refund + ReturnStock) ──reversed and returned──► CANCELLED (CANCELLED_BY_USER | _BY_SUPPORT)
 *
 * A customer may cancel at any point before delivery: waiting for stock → released at once;
 * waiting for payment → void/refund and release, as a payment deadline does; while committing the
 * request is remembered and acted on when inventory answers (the commit's outcome is not ours to
 * guess); confirmed → refund and return the sold units. Once delivering it is refused.
 * CANCELLING is entered only when money may have moved or sold stock must come back; otherwise a
 * cancellation goes straight to CANCELLED. Every state that waits on another party has a deadline.
 *
 * A reversal is recorded only on a positive answer (`voided` / `refunded`). When the PSP's answers
 * contradict each other (refund: `not_captured`, then void: `already_captured` — a capture landed
 * between the two calls) the step is re-armed as a new round with new idempotency keys. The
 * payment reconciliation compares the PSP's state of every cancelled order with the saga and feeds
 * PaymentMismatchFound when money is still held: CANCELLED → CANCELLING → CANCELLED again, without
 * a second OrderCancelled.
 */
export type SagaState =
  | 'AWAITING_STOCK'
  | 'AWAITING_PAYMENT'
  | 'COMMITTING'
  | 'CONFIRMED'
  | 'DELIVERING'
  | 'COMPLETED'
  | 'CANCELLING'
  | 'CANCELLED';

/** The OrderCancelled reasons (libs/contracts). */
export type CancelReason =
  | 'STOCK_REJECTED'
  | 'PAYMENT_DECLINED'
  | 'STOCK_DEADLINE_EXCEEDED'
  | 'PAYMENT_DEADLINE_EXCEEDED'
  | 'COMMIT_FAILED'
  | 'CANCELLED_BY_USER'
  | 'CANCELLED_BY_SUPPORT';

/** The role an actor acted in: a person's role for an HTTP action, `system` for every other input. */
export type ActorRole = 'customer' | 'support' | 'operator' | 'system';

/**
 * Who caused a transition (the audit trail, ADR 0052): the token's subject and the role the person
 * acted in, or the part of the system whose input it was.
 */
export interface Actor {
  readonly sub: string;
  readonly role: ActorRole;
}

/** The system actors: inventory's replies, the payment worker's outcomes, the deadline sweeper, the payment reconciliation. */
export const SYSTEM_ACTORS = {
  inventory: { sub: 'inventory', role: 'system' },
  payment: { sub: 'orders:payment-worker', role: 'system' },
  deadline: { sub: 'orders:deadline-sweeper', role: 'system' },
  reconciliation: { sub: 'orders:payment-reconciliation', role: 'system' },
} as const satisfies Record<string, Actor>;

/** The actor of an input: the caller of an HTTP action, else the system part it comes from. */
export function actorOf(input: SagaInput): Actor {
  switch (input.type) {
    case 'CancelRequested':
    case 'DeliveryStarted':
    case 'DeliveryCompleted':
      return input.by;
    case 'DeadlinePassed':
      return SYSTEM_ACTORS.deadline;
    case 'PaymentAuthorized':
    case 'PaymentDeclined':
    case 'PaymentCaptured':
    case 'PaymentCaptureFailed':
    case 'PaymentReversed':
    case 'PaymentReversalContradicted':
      return SYSTEM_ACTORS.payment;
    case 'PaymentMismatchFound':
      return SYSTEM_ACTORS.reconciliation;
    case 'StockReserved':
    case 'StockRejected':
    case 'StockCommitted':
    case 'StockCommitFailed':
    case 'StockReleased':
    case 'StockReturned':
    case 'StockReturnFailed':
      return SYSTEM_ACTORS.inventory;
  }
}

/** A person's cancellation: support cancelling for a customer is told apart from the customer's own. */
export function personalCancelReason(by: Actor | string | undefined): CancelReason {
  return typeof by === 'object' && by.role === 'support' ? 'CANCELLED_BY_SUPPORT' : 'CANCELLED_BY_USER';
}

/**
 * Sold units coming back after a cancellation of a committed order: `pending` until inventory
 * answers StockReturned (`returned`) or StockReturnFailed (`failed`, nothing was committed there).
 */
export type StockReturn = 'pending' | 'returned' | 'failed';

/** Work the payment worker must perform for this order (null: none). */
export type PaymentStep = 'SALE' | 'AUTHORIZE' | 'CAPTURE' | 'VOID' | 'REFUND';

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
  /**
   * Reversal round: 0 for the first void/refund, +1 each time the PSP contradicted itself (a refund
   * answered `not_captured`, then the void `already_captured`: a capture landed in between) or the
   * reconciliation found money still held. Each round uses its own idempotency keys, so a stored
   * negative answer of an earlier round can never be replayed as the truth. Absent on older orders: 0.
   */
  readonly round?: number;
}

export interface TransitionRecord {
  readonly from: SagaState;
  readonly to: SagaState;
  /** The input that caused it (message type, payment outcome or DeadlinePassed). */
  readonly event: SagaInput['type'];
  /** Id of the message / payment operation / deadline that caused it; a repeated cause is ignored. */
  readonly cause: string;
  readonly at: Date;
  /** Who caused it; absent on records written before the audit trail. */
  readonly by?: Actor;
}

export interface StockState {
  readonly reserved_until: Date | null;
  readonly failure: string | null;
  /** Absent on orders written before returns existed: read as null. */
  readonly return?: StockReturn | null;
}

export interface Saga {
  readonly state: SagaState;
  readonly reason: CancelReason | null;
  /** Deadline of the current wait; null when nothing is awaited from another party. */
  readonly deadline: Date | null;
  readonly payment: PaymentState;
  readonly stock: StockState;
  /** A customer asked to cancel while the stock commit was in flight: acted on when inventory answers. */
  readonly cancel_requested?: { readonly at: Date; readonly by: Actor | string } | null;
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
  /** `authorization_id`: present when a sale authorized and captured in one call. */
  | { readonly type: 'PaymentCaptured'; readonly id: string; readonly authorization_id?: string }
  | { readonly type: 'PaymentCaptureFailed'; readonly id: string; readonly code: string }
  | { readonly type: 'PaymentReversed'; readonly id: string; readonly how: 'voided' | 'refunded' }
  /** Both reversal calls of a round answered "nothing to do" in contradiction: start round `round + 1` with `next`. */
  | {
      readonly type: 'PaymentReversalContradicted';
      readonly id: string;
      readonly round: number;
      readonly next: 'VOID' | 'REFUND';
    }
  /** The reconciliation found the PSP still holding money of a cancelled order: reverse it again. */
  | { readonly type: 'PaymentMismatchFound'; readonly id: string; readonly missing: 'VOID' | 'REFUND' }
  | { readonly type: 'StockReturned'; readonly id: string }
  | { readonly type: 'StockReturnFailed'; readonly id: string; readonly code: string }
  | { readonly type: 'DeadlinePassed'; readonly id: string }
  /** HTTP actions; their ids are fixed per order (`cancel:<order>` …), so a repeated request is a no-op. */
  | { readonly type: 'CancelRequested'; readonly id: string; readonly by: Actor }
  | { readonly type: 'DeliveryStarted'; readonly id: string; readonly by: Actor }
  | { readonly type: 'DeliveryCompleted'; readonly id: string; readonly by: Actor };

/** The inputs a person triggers over HTTP (the others are messages, payment outcomes and deadlines). */
export type ActionInput = Extract<
  SagaInput,
  { type: 'CancelRequested' | 'DeliveryStarted' | 'DeliveryCompleted' }
>;

/** Input id of an HTTP action on an order: one per order and action, so a retried request is a duplicate. */
export function actionId(type: ActionInput['type'], orderId: string): string {
  return `${type === 'CancelRequested' ? 'cancel' : type === 'DeliveryStarted' ? 'deliver' : 'complete'}:${orderId}`;
}

/** What the orchestrator sends; turned into contract messages by the service. */
export type SagaCommand =
  | { readonly type: 'ReserveStock' }
  | { readonly type: 'ReleaseStock' }
  /** `failure_only`: the order is already confirmed, inventory answers only a failed sale (ADR 0015 §3). */
  | { readonly type: 'CommitStock'; readonly reply?: 'failure_only' }
  | { readonly type: 'ReturnStock' }
  | { readonly type: 'OrderConfirmed' }
  | { readonly type: 'OrderDeliveryStarted' }
  | { readonly type: 'OrderCompleted' }
  | {
      readonly type: 'OrderCancelled';
      readonly reason: CancelReason;
      readonly after_confirmation: boolean;
      /** Who decided the cancellation (absent only for orders whose history predates the audit trail). */
      readonly by?: Actor;
    };

/** Why an HTTP action is refused in the current state (409 at the edge). */
export type RefusalCode = 'ORDERS.CANCEL_REFUSED' | 'ORDERS.ILLEGAL_TRANSITION';

export type Decision =
  | { readonly kind: 'apply'; readonly saga: Saga; readonly commands: readonly SagaCommand[] }
  | { readonly kind: 'ignore'; readonly why: string }
  | { readonly kind: 'refuse'; readonly code: RefusalCode; readonly message: string };

export interface SagaTimeouts {
  /** Wait for StockReserved | StockRejected. */
  readonly stockMs: number;
  /** The payment (a sale, or authorize + capture), bounded also by the reservation's expiry. */
  readonly paymentMs: number;
  /**
   * The window kept for a confirmed order's sale to reach inventory before its hold expires: the
   * payment deadline ends this long before the hold does (at most half the hold). Also the wait of
   * an order still COMMITTING (on expiry CommitStock is re-sent, never cancelled).
   */
  readonly commitMs: number;
  /** Void/refund (and a stock return); on expiry the payment step is re-armed and ReturnStock re-sent. */
  readonly cancelMs: number;
}

/** States where the checkout saga has ended: the order was confirmed (and maybe delivered since) or cancelled. */
export const TERMINAL: readonly SagaState[] = ['CONFIRMED', 'DELIVERING', 'COMPLETED', 'CANCELLED'];
export const isTerminal = (s: SagaState): boolean => TERMINAL.includes(s);

/** Whether the order was ever confirmed: its stock was sold and its money taken (a later cancel reverses both). */
export const wasConfirmed = (saga: Saga): boolean => saga.history.some((h) => h.to === 'CONFIRMED');

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

export type OrderStatus = 'pending' | 'confirmed' | 'delivering' | 'completed' | 'cancelling' | 'cancelled';

/** Order status at the edge (seed 002: confirmed → delivering → completed, or cancelled). */
export function statusOf(state: SagaState): OrderStatus {
  switch (state) {
    case 'AWAITING_STOCK':
    case 'AWAITING_PAYMENT':
    case 'COMMITTING':
      return 'pending';
    case 'CONFIRMED':
      return 'confirmed';
    case 'DELIVERING':
      return 'delivering';
    case 'COMPLETED':
      return 'completed';
    case 'CANCELLING':
      return 'cancelling';
    case 'CANCELLED':
      return 'cancelled';
  }
}

/** The transition table. Anything a state does not accept is an explained no-op (or, for an HTTP action, a refusal). */
export function decide(saga: Saga, input: SagaInput, now: Date, t: SagaTimeouts): Decision {
  if (saga.history.some((h) => h.cause === input.id)) return ignore(`duplicate of ${input.id}`);
  const step = (to: SagaState, patch: Partial<Saga>, commands: SagaCommand[] = []): Decision => ({
    kind: 'apply',
    saga: {
      ...saga,
      ...patch,
      state: to,
      history: [
        ...saga.history,
        { from: saga.state, to, event: input.type, cause: input.id, at: now, by: actorOf(input) },
      ],
    },
    commands,
  });
  const orderCancelled = (reason: CancelReason): SagaCommand => {
    const by = cancelledBy(saga, input, reason);
    return { type: 'OrderCancelled', reason, after_confirmation: wasConfirmed(saga), ...(by ? { by } : {}) };
  };
  const cancelled = (reason: CancelReason, commands: SagaCommand[], patch: Partial<Saga> = {}): Decision =>
    step(
      'CANCELLED',
      { reason, deadline: null, payment: { ...saga.payment, step: null, next_at: null }, ...patch },
      [...commands, orderCancelled(reason)],
    );
  const cancelling = (
    reason: CancelReason,
    reverse: 'VOID' | 'REFUND',
    commands: SagaCommand[],
    patch: Partial<Saga> = {},
  ): Decision =>
    step(
      'CANCELLING',
      {
        reason,
        deadline: at(now, t.cancelMs),
        payment: { ...saga.payment, step: reverse, next_at: now, attempts: 0 },
        ...patch,
      },
      commands,
    );
  /** Paid and committed, now cancelled: the money goes back and so do the sold units. */
  const refundAndReturn = (reason: CancelReason): Decision =>
    cancelling(reason, 'REFUND', [{ type: 'ReturnStock' }], {
      cancel_requested: null,
      stock: { ...saga.stock, return: 'pending' },
    });
  const pay = saga.payment;
  const round = pay.round ?? 0;
  /** OrderCancelled is announced once: a reversal re-armed by the reconciliation ends silently. */
  const announced = saga.history.some((h) => h.to === 'CANCELLED');
  const finalCancel = (reason: CancelReason): SagaCommand[] => (announced ? [] : [orderCancelled(reason)]);
  /** Money of a cancelled order the PSP still holds: a new reversal round. */
  const rearmReversal = (missing: 'VOID' | 'REFUND'): Decision =>
    step('CANCELLING', {
      deadline: at(now, t.cancelMs),
      payment: { ...pay, step: missing, next_at: now, attempts: 0, reversed: null, round: round + 1 },
    });
  const returnPending = saga.stock.return === 'pending';
  const cancelRequest = input.type === 'CancelRequested' ? { at: now, by: input.by } : null;
  const byPerson = personalCancelReason(
    input.type === 'CancelRequested' ? input.by : saga.cancel_requested?.by,
  );

  switch (saga.state) {
    case 'AWAITING_STOCK':
      switch (input.type) {
        case 'StockReserved': {
          // The payment ends a commit window before the hold expires: the sale sent with the
          // confirmation must find the hold still there (ADR 0015 §3).
          const expires = input.expires_at.getTime();
          const window = Math.min(t.commitMs, Math.max(0, expires - now.getTime()) / 2);
          const deadline = new Date(Math.min(now.getTime() + t.paymentMs, expires - window));
          return step('AWAITING_PAYMENT', {
            deadline,
            stock: { ...saga.stock, reserved_until: input.expires_at },
            payment: { ...pay, step: 'SALE', next_at: now, attempts: 0 },
          });
        }
        case 'StockRejected':
          return cancelled('STOCK_REJECTED', [], { stock: { ...saga.stock, failure: input.code } });
        case 'DeadlinePassed':
          // ReleaseStock follows ReserveStock on the same key, so inventory releases whatever it reserved.
          return cancelled('STOCK_DEADLINE_EXCEEDED', [{ type: 'ReleaseStock' }]);
        case 'CancelRequested':
          // Nothing paid yet: release whatever inventory reserved (or will reserve) and stop.
          return cancelled(byPerson, [{ type: 'ReleaseStock' }]);
        default:
          return otherwise(input, saga.state);
      }
    case 'AWAITING_PAYMENT':
      switch (input.type) {
        case 'PaymentAuthorized':
          if (pay.step !== 'AUTHORIZE') return ignore('authorization outcome for a step no longer current');
          return step('AWAITING_PAYMENT', {
            payment: {
              ...pay,
              step: 'CAPTURE',
              next_at: now,
              attempts: 0,
              authorized: true,
              authorization_id: input.authorization_id,
            },
          });
        case 'PaymentDeclined':
          // Declined: nothing was taken, whether by an authorization or a sale.
          if (pay.step !== 'AUTHORIZE' && pay.step !== 'SALE')
            return ignore('decline for a step no longer current');
          return cancelled('PAYMENT_DECLINED', [{ type: 'ReleaseStock' }], {
            payment: { ...pay, step: null, next_at: null, decline_code: input.code },
          });
        case 'PaymentCaptured': {
          if (pay.step !== 'CAPTURE' && pay.step !== 'SALE')
            return ignore('capture outcome for a step no longer current');
          // Paid within the deadline, so the hold is still there: confirmed, and the sale goes out
          // with the confirmation, answered only if it fails.
          const sale =
            pay.step === 'SALE' ? { authorized: true, authorization_id: input.authorization_id ?? null } : {};
          return step(
            'CONFIRMED',
            { deadline: null, payment: { ...pay, ...sale, step: null, next_at: null, captured: true } },
            [{ type: 'CommitStock', reply: 'failure_only' }, { type: 'OrderConfirmed' }],
          );
        }
        case 'PaymentCaptureFailed':
          if (pay.step !== 'CAPTURE') return ignore('capture failure for a step no longer current');
          return cancelling('PAYMENT_DECLINED', 'VOID', [{ type: 'ReleaseStock' }], {});
        case 'DeadlinePassed':
          // The outcome of an in-flight call is unknown: reverse whatever the step may have done
          // (a refund of nothing captured falls back to a void, which also blocks a late sale).
          return cancelling('PAYMENT_DEADLINE_EXCEEDED', mayHaveCaptured(pay.step) ? 'REFUND' : 'VOID', [
            { type: 'ReleaseStock' },
          ]);
        case 'CancelRequested':
          // Like a payment deadline: a call may be in flight, so reverse whatever it may have done.
          return cancelling(byPerson, mayHaveCaptured(pay.step) ? 'REFUND' : 'VOID', [
            { type: 'ReleaseStock' },
          ]);
        default:
          return otherwise(input, saga.state);
      }
    case 'COMMITTING':
      // Orders captured before the sale rode with the confirmation (ADR 0015 §3).
      switch (input.type) {
        case 'StockCommitted':
          // Sold — unless the customer asked to cancel meanwhile: then the sale is undone at once.
          if (saga.cancel_requested) return refundAndReturn(byPerson);
          return step('CONFIRMED', { deadline: null }, [{ type: 'OrderConfirmed' }]);
        case 'StockCommitFailed':
          // Paid, but the reservation is gone (expired or released): the money goes back.
          return cancelling('COMMIT_FAILED', 'REFUND', [], {
            cancel_requested: null,
            stock: { ...saga.stock, failure: input.code },
          });
        case 'DeadlinePassed':
          // Inventory decides a commit once and for all (commands are ordered per order id), so
          // cancelling here could cancel a sale inventory made final. Ask again and keep waiting.
          return step('COMMITTING', { deadline: at(now, t.commitMs) }, [{ type: 'CommitStock' }]);
        case 'CancelRequested':
          // Whether inventory sells is being decided right now: remember the request, act on the answer.
          return step('COMMITTING', { cancel_requested: cancelRequest });
        default:
          return otherwise(input, saga.state);
      }
    case 'CONFIRMED':
      switch (input.type) {
        case 'StockCommitFailed':
          // The sale sent with the confirmation found no hold (gone past its expiry while the
          // sale was delayed beyond the commit window): nothing was sold, the money goes back.
          return cancelling('COMMIT_FAILED', 'REFUND', [], {
            stock: { ...saga.stock, failure: input.code },
          });
        case 'CancelRequested':
          return refundAndReturn(byPerson);
        case 'DeliveryStarted':
          return step('DELIVERING', {}, [{ type: 'OrderDeliveryStarted' }]);
        default:
          return otherwise(input, saga.state);
      }
    case 'DELIVERING':
      switch (input.type) {
        case 'StockCommitFailed':
          // The goods are out and the sale found no hold (delayed past it, beyond the hold's margin
          // over the payment wait): not undone here, recorded on the order for support.
          return step('DELIVERING', { stock: { ...saga.stock, failure: input.code } });
        case 'DeliveryCompleted':
          return step('COMPLETED', {}, [{ type: 'OrderCompleted' }]);
        case 'CancelRequested':
          return refuse(
            'ORDERS.CANCEL_REFUSED',
            'the order is already being delivered and can no longer be cancelled',
          );
        default:
          return otherwise(input, saga.state);
      }
    case 'COMPLETED':
      if (input.type === 'StockCommitFailed')
        return step('COMPLETED', { stock: { ...saga.stock, failure: input.code } });
      if (input.type === 'CancelRequested')
        return refuse('ORDERS.CANCEL_REFUSED', 'the order was delivered and can no longer be cancelled');
      return otherwise(input, saga.state);
    case 'CANCELLING':
      switch (input.type) {
        case 'PaymentReversed': {
          if (pay.step !== 'VOID' && pay.step !== 'REFUND')
            return ignore('reversal outcome for a step no longer current');
          const payment = { ...pay, step: null, next_at: null, reversed: input.how };
          // Sold units still on their way back: keep waiting for inventory (the deadline re-sends ReturnStock).
          if (returnPending) return step('CANCELLING', { payment });
          return step(
            'CANCELLED',
            { deadline: null, payment },
            finalCancel(saga.reason ?? 'PAYMENT_DECLINED'),
          );
        }
        case 'PaymentReversalContradicted':
          // Only a positive answer is a reversal: the PSP's answers disagree, so ask again with new keys.
          if (pay.step !== 'VOID' && pay.step !== 'REFUND')
            return ignore('reversal outcome for a step no longer current');
          if (input.round !== round)
            return ignore(`contradiction of reversal round ${input.round}, now ${round}`);
          return step('CANCELLING', {
            payment: { ...pay, step: input.next, next_at: now, attempts: 0, round: round + 1 },
          });
        case 'PaymentMismatchFound':
          if (pay.reversed === null) return ignore('a reversal is still in progress');
          return rearmReversal(input.missing);
        case 'StockReturned':
        case 'StockReturnFailed': {
          if (!returnPending) return ignore(`${input.type} when no return is pending`);
          const stock = {
            ...saga.stock,
            return: input.type === 'StockReturned' ? 'returned' : 'failed',
            ...(input.type === 'StockReturnFailed' ? { failure: input.code } : {}),
          } as const;
          if (pay.reversed === null) return step('CANCELLING', { stock });
          return step(
            'CANCELLED',
            { deadline: null, stock },
            finalCancel(saga.reason ?? 'CANCELLED_BY_USER'),
          );
        }
        case 'StockReserved':
          return step('CANCELLING', {}, [{ type: 'ReleaseStock' }]);
        case 'DeadlinePassed': {
          // Re-arm what is still missing: the payment reversal, the stock return, or both.
          const payment = pay.reversed === null ? { ...pay, next_at: now, attempts: 0 } : pay;
          return step(
            'CANCELLING',
            { deadline: at(now, t.cancelMs), payment },
            returnPending ? [{ type: 'ReturnStock' }] : [],
          );
        }
        case 'CancelRequested':
          return ignore('the order is already being cancelled');
        default:
          return otherwise(input, saga.state);
      }
    case 'CANCELLED':
      // A reservation that arrives after the saga was compensated is released again (idempotent).
      if (input.type === 'StockReserved') return step('CANCELLED', {}, [{ type: 'ReleaseStock' }]);
      if (input.type === 'CancelRequested') return ignore('the order is already cancelled');
      if (input.type === 'PaymentMismatchFound') return rearmReversal(input.missing);
      return otherwise(input, saga.state);
  }
}

/** Whether a payment step in flight may have taken the money (then a reversal starts with a refund). */
const mayHaveCaptured = (step: PaymentStep | null): boolean => step === 'CAPTURE' || step === 'SALE';

/** What a state does with an input it has no rule for: an HTTP action is refused, a message is ignored. */
function otherwise(input: SagaInput, state: SagaState): Decision {
  switch (input.type) {
    case 'CancelRequested':
      return refuse('ORDERS.CANCEL_REFUSED', `an order in ${state} cannot be cancelled`);
    case 'DeliveryStarted':
      return refuse(
        'ORDERS.ILLEGAL_TRANSITION',
        `only a confirmed order can be handed to delivery (the order is ${statusOf(state)})`,
      );
    case 'DeliveryCompleted':
      return refuse(
        'ORDERS.ILLEGAL_TRANSITION',
        `only an order being delivered can be completed (the order is ${statusOf(state)})`,
      );
    default:
      return ignore(`${input.type} in ${state}`);
  }
}

/**
 * Who decided a cancellation: for a person's reason, the latest cancel request (this input or one
 * in the history); otherwise whoever moved the order out of its course (the first transition into
 * CANCELLING or CANCELLED), which is this input when it cancels at once.
 */
function cancelledBy(saga: Saga, input: SagaInput, reason: CancelReason): Actor | undefined {
  if (reason === 'CANCELLED_BY_USER' || reason === 'CANCELLED_BY_SUPPORT') {
    if (input.type === 'CancelRequested') return input.by;
    const asked = saga.history.findLast((h) => h.event === 'CancelRequested');
    return asked ? asked.by : undefined;
  }
  const decided = saga.history.find((h) => h.to === 'CANCELLING' || h.to === 'CANCELLED');
  return decided ? decided.by : actorOf(input);
}

function refuse(code: RefusalCode, message: string): Decision {
  return { kind: 'refuse', code, message };
}

function ignore(why: string): Decision {
  return { kind: 'ignore', why };
}

function at(now: Date, ms: number): Date {
  return new Date(now.getTime() + ms);
}
