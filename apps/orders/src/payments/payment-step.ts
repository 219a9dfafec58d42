import { assertUnreachable } from '@mw/platform';
import type { PaymentStep, SagaInput } from '../saga/saga';
import {
  idempotencyKey,
  PaymentGateway,
  PaymentOperation,
  PaymentRequest,
  reversalKey,
} from './payment-gateway';

export interface PaymentSubject {
  readonly orderId: string;
  readonly amount: number;
  readonly userId: string;
  readonly cardToken: string;
}

/**
 * Performs one persisted payment step through the port and describes its outcome as a saga input
 * whose id is the idempotency key of the deciding call (a replayed outcome is a no-op in the saga).
 *
 * A reversal adapts to what actually happened — a void of a captured payment becomes a refund, a
 * refund of an uncaptured one becomes a void (which also blocks a late authorization) — but only a
 * positive answer (`voided` / `refunded`) is ever reported as a reversal. When both calls answer
 * "nothing to do" (refund `not_captured`, then void `already_captured`: a capture landed between
 * the two calls), the outcome is a contradiction and the saga starts the next round (`round + 1`,
 * new keys) with the step the PSP's latest answer points to.
 * Transient failures propagate (PaymentUnavailableError) for the caller to retry with the same keys.
 */
export async function performPaymentStep(
  gateway: PaymentGateway,
  s: PaymentSubject,
  step: PaymentStep,
  round = 0,
  timed: <T>(call: Promise<T>) => Promise<T> = (c) => c,
): Promise<SagaInput> {
  const req = (op: PaymentOperation, key = idempotencyKey(s.orderId, op)): PaymentRequest => ({
    idempotencyKey: key,
    reference: s.orderId,
    amount: s.amount,
    currency: 'RUB',
    cardToken: s.cardToken,
    userId: s.userId,
  });
  const voidKey = reversalKey(s.orderId, 'void', round);
  const refundKey = reversalKey(s.orderId, 'refund', round);
  const voided: SagaInput = { type: 'PaymentReversed', id: voidKey, how: 'voided' };
  const refunded: SagaInput = { type: 'PaymentReversed', id: refundKey, how: 'refunded' };
  const contradicted = (next: 'VOID' | 'REFUND'): SagaInput => ({
    type: 'PaymentReversalContradicted',
    id: `${s.orderId}:reversal-contradicted:r${round}`,
    round,
    next,
  });
  switch (step) {
    case 'AUTHORIZE': {
      const r = await timed(gateway.authorize(req('authorize')));
      const id = idempotencyKey(s.orderId, 'authorize');
      return r.status === 'authorized'
        ? { type: 'PaymentAuthorized', id, authorization_id: r.authorization_id }
        : { type: 'PaymentDeclined', id, code: r.code };
    }
    case 'CAPTURE': {
      const r = await timed(gateway.capture(req('capture')));
      const id = idempotencyKey(s.orderId, 'capture');
      return r.status === 'captured'
        ? { type: 'PaymentCaptured', id }
        : { type: 'PaymentCaptureFailed', id, code: r.code };
    }
    case 'SALE': {
      const r = await timed(gateway.sale(req('sale')));
      const id = idempotencyKey(s.orderId, 'sale');
      return r.status === 'captured'
        ? { type: 'PaymentCaptured', id, authorization_id: r.authorization_id }
        : { type: 'PaymentDeclined', id, code: r.code };
    }
    case 'VOID': {
      if ((await timed(gateway.void(req('void', voidKey)))).status === 'voided') return voided;
      if ((await timed(gateway.refund(req('refund', refundKey)))).status === 'refunded') return refunded;
      return contradicted('VOID'); // the latest answer: nothing captured after all
    }
    case 'REFUND': {
      if ((await timed(gateway.refund(req('refund', refundKey)))).status === 'refunded') return refunded;
      if ((await timed(gateway.void(req('void', voidKey)))).status === 'voided') return voided;
      return contradicted('REFUND'); // the latest answer: the money was captured after all
    }
    default:
      return assertUnreachable(step);
  }
}
