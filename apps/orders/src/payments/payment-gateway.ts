import { AppError } from '@mw/platform';

/**
 * The payment port. The saga never talks to a PSP: the payment worker calls this port with an
 * idempotency key derived from the order (`<order_id>:<operation>`), so a retried or repeated call
 * (a crash, a timeout, a second instance) never charges twice. A real PSP adapter implements the
 * same operations; transient failures (network, timeouts, 5xx) are thrown as
 * `PaymentUnavailableError`, every other answer is a result.
 *
 * A checkout pays with one `sale` — authorize and capture in one call, what PSPs call automatic
 * capture (ADR 0015 §11). `authorize` and `capture` stay for orders whose saga armed them before.
 */
export interface PaymentRequest {
  readonly idempotencyKey: string;
  /** The payment reference at the PSP: the order id. */
  readonly reference: string;
  readonly amount: number;
  readonly currency: 'RUB';
  readonly cardToken: string;
  readonly userId: string;
}

export type AuthorizeResult =
  | { readonly status: 'authorized'; readonly authorization_id: string }
  | { readonly status: 'declined'; readonly code: string };
/** Authorized and captured in one call, or declined with nothing taken. */
export type SaleResult =
  | { readonly status: 'captured'; readonly authorization_id: string }
  | { readonly status: 'declined'; readonly code: string };
export type CaptureResult =
  { readonly status: 'captured' } | { readonly status: 'failed'; readonly code: string };
/** `already_captured`: the money was taken; the caller refunds instead. */
export type VoidResult = { readonly status: 'voided' } | { readonly status: 'already_captured' };
/** `not_captured`: nothing was taken; the caller voids instead. */
export type RefundResult = { readonly status: 'refunded' } | { readonly status: 'not_captured' };

/** What the PSP holds for one payment reference (the reconciliation reads it). */
export type PaymentStatus = 'authorized' | 'declined' | 'captured' | 'voided' | 'refunded';

export interface PaymentGateway {
  authorize(req: PaymentRequest): Promise<AuthorizeResult>;
  capture(req: PaymentRequest): Promise<CaptureResult>;
  /** Authorize and capture together: the money is taken, or nothing is. */
  sale(req: PaymentRequest): Promise<SaleResult>;
  void(req: PaymentRequest): Promise<VoidResult>;
  refund(req: PaymentRequest): Promise<RefundResult>;
  /** The PSP's current state of a payment reference; null when it never saw it. Transient failures throw. */
  status(reference: string): Promise<PaymentStatus | null>;
}

export const PAYMENT_GATEWAY = Symbol('PAYMENT_GATEWAY');

export type PaymentOperation = 'authorize' | 'capture' | 'sale' | 'void' | 'refund';

/** The idempotency key of one operation on one order: the same order and operation, the same key. */
export const idempotencyKey = (orderId: string, op: PaymentOperation): string => `${orderId}:${op}`;

/**
 * The key of a reversal call in reversal round `round`: round 0 is the plain key; a later round
 * (after the PSP contradicted itself, or the reconciliation found money still held) gets its own,
 * so the stored negative answer of an earlier round is never replayed.
 */
export const reversalKey = (orderId: string, op: 'void' | 'refund', round: number): string =>
  round === 0 ? idempotencyKey(orderId, op) : `${idempotencyKey(orderId, op)}:r${round}`;

/** A transient failure: the outcome is unknown or the PSP is unreachable; retry with the same key. */
export class PaymentUnavailableError extends AppError {
  constructor(code: 'PAYMENTS.PSP_UNAVAILABLE' | 'PAYMENTS.PSP_TIMEOUT', message: string) {
    super(code, 'unavailable', message);
  }
}
