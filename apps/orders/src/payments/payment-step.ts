import { assertUnreachable } from '@mw/platform';
import type { PaymentStep, SagaInput } from '../saga/saga';
import { idempotencyKey, PaymentGateway, PaymentOperation, PaymentRequest } from './payment-gateway';

export interface PaymentSubject {
  readonly orderId: string;
  readonly amount: number;
  readonly userId: string;
  readonly cardToken: string;
}

/**
 * Performs one persisted payment step through the port and describes its outcome as a saga input
 * whose id is the idempotency key of the deciding call (a replayed outcome is a no-op in the saga).
 * A reversal adapts to what actually happened: a void of a captured payment becomes a refund, a
 * refund of an uncaptured one becomes a void (which also blocks a late authorization).
 * Transient failures propagate (PaymentUnavailableError) for the caller to retry with the same keys.
 */
export async function performPaymentStep(
  gateway: PaymentGateway,
  s: PaymentSubject,
  step: PaymentStep,
  timed: <T>(call: Promise<T>) => Promise<T> = (c) => c,
): Promise<SagaInput> {
  const req = (op: PaymentOperation): PaymentRequest => ({
    idempotencyKey: idempotencyKey(s.orderId, op),
    reference: s.orderId,
    amount: s.amount,
    currency: 'RUB',
    cardToken: s.cardToken,
    userId: s.userId,
  });
  const voided: SagaInput = { type: 'PaymentReversed', id: idempotencyKey(s.orderId, 'void'), how: 'voided' };
  const refunded: SagaInput = { type: 'PaymentReversed', id: idempotencyKey(s.orderId, 'refund'), how: 'refunded' };
  switch (step) {
    case 'AUTHORIZE': {
      const r = await timed(gateway.authorize(req('authorize')));
      const id = idempotencyKey(s.orderId, 'authorize');
      return r.status === 'authorized' ? { type: 'PaymentAuthorized', id, authorization_id: r.authorization_id } : { type: 'PaymentDeclined', id, code: r.code };
    }
    case 'CAPTURE': {
      const r = await timed(gateway.capture(req('capture')));
      const id = idempotencyKey(s.orderId, 'capture');
      return r.status === 'captured' ? { type: 'PaymentCaptured', id } : { type: 'PaymentCaptureFailed', id, code: r.code };
    }
    case 'VOID': {
      const r = await timed(gateway.void(req('void')));
      if (r.status === 'voided') return voided;
      await timed(gateway.refund(req('refund')));
      return refunded;
    }
    case 'REFUND': {
      const r = await timed(gateway.refund(req('refund')));
      if (r.status === 'refunded') return refunded;
      await timed(gateway.void(req('void')));
      return voided;
    }
    default:
      return assertUnreachable(step);
  }
}
