import type {
  AuthorizeResult,
  CaptureResult,
  PaymentOperation,
  RefundResult,
  SaleResult,
  VoidResult,
} from '../payment-gateway';

/**
 * The payment simulator's rules, pure: when it declines, how long it takes, whether a call fails
 * transiently, and the state machine of one payment reference at the "PSP":
 *
 *   (none) ──authorize──► authorized | declined
 *   (none) ──sale──► captured | declined          (authorize and capture in one call)
 *   authorized ──capture | sale──► captured ──refund──► refunded
 *   authorized | (none) ──void──► voided   (a void before the authorization or the sale blocks it: it is declined)
 *
 * A capture (or a sale) of a `lateCaptureUsers` user is accepted but lands late (a slow PSP): the
 * caller's call times out and the payment stays `authorized` with `pending_capture`; the capture
 * lands right after the next refund was answered `not_captured` — between a reversal's two calls,
 * the race of issue 16 — while a void before that cancels it.
 */
export interface SimulatorRules {
  /** Decline every authorization of at least this amount (kopecks); null: no amount rule. */
  readonly declineAmountFrom: number | null;
  readonly declineTokens: readonly string[];
  readonly declineUsers: readonly string[];
  /** Authorize, capture and sale for these users never answer (a hung PSP); void/refund still work. */
  readonly hangUsers: readonly string[];
  /** Captures and sales for these users land late: see the state machine above. */
  readonly lateCaptureUsers: readonly string[];
  readonly latencyMinMs: number;
  readonly latencyMaxMs: number;
  /** Share of calls failing before anything happens (connection refused, 503). */
  readonly transientErrorRate: number;
  /** Share of calls that are processed but whose answer is lost (the caller sees a timeout). */
  readonly timeoutRate: number;
}

export type PspStatus = 'authorized' | 'declined' | 'captured' | 'voided' | 'refunded';

export interface PspPayment {
  readonly status: PspStatus;
  readonly amount: number;
  readonly authorization_id: string | null;
  readonly decline_code: string | null;
  /** A capture accepted but not landed yet (lateCaptureUsers). */
  readonly pending_capture?: boolean;
}

export type PspOutcome = AuthorizeResult | CaptureResult | SaleResult | VoidResult | RefundResult;

export interface AuthorizeInput {
  readonly amount: number;
  readonly cardToken: string;
  readonly userId: string;
}

export function declineCodeOf(rules: SimulatorRules, req: AuthorizeInput): string | null {
  if (rules.declineUsers.includes(req.userId)) return 'USER_BLOCKED';
  if (rules.declineTokens.includes(req.cardToken)) return 'CARD_DECLINED';
  if (rules.declineAmountFrom !== null && req.amount >= rules.declineAmountFrom)
    return 'AMOUNT_LIMIT_EXCEEDED';
  return null;
}

/** Latency drawn uniformly from [min, max] with the given random number in [0, 1). */
export const latencyOf = (rules: SimulatorRules, random: number): number =>
  Math.round(rules.latencyMinMs + (rules.latencyMaxMs - rules.latencyMinMs) * random);

/**
 * Applies one operation to a payment reference. `next` is the new state (null: unchanged).
 * Every operation is idempotent at this level too, so a crash between the state change and the
 * record of the call (two writes) cannot make a second charge.
 */
export function applyOperation(
  current: PspPayment | null,
  op: PaymentOperation,
  input: AuthorizeInput,
  rules: SimulatorRules,
  newAuthorizationId: () => string,
): { next: PspPayment | null; outcome: PspOutcome; late?: true } {
  switch (op) {
    case 'authorize': {
      if (current) {
        if (current.status === 'declined')
          return { next: null, outcome: { status: 'declined', code: current.decline_code ?? 'DECLINED' } };
        if (current.status === 'voided')
          return { next: null, outcome: { status: 'declined', code: 'PAYMENT_CANCELLED' } };
        return {
          next: null,
          outcome: { status: 'authorized', authorization_id: current.authorization_id ?? '' },
        };
      }
      const code = declineCodeOf(rules, input);
      if (code)
        return {
          next: { status: 'declined', amount: input.amount, authorization_id: null, decline_code: code },
          outcome: { status: 'declined', code },
        };
      const authorization_id = newAuthorizationId();
      return {
        next: { status: 'authorized', amount: input.amount, authorization_id, decline_code: null },
        outcome: { status: 'authorized', authorization_id },
      };
    }
    case 'sale': {
      if (current?.status === 'declined')
        return { next: null, outcome: { status: 'declined', code: current.decline_code ?? 'DECLINED' } };
      if (current?.status === 'voided')
        return { next: null, outcome: { status: 'declined', code: 'PAYMENT_CANCELLED' } };
      if (current?.status === 'captured' || current?.status === 'refunded')
        return {
          next: null,
          outcome: { status: 'captured', authorization_id: current.authorization_id ?? '' },
        };
      const code = current ? null : declineCodeOf(rules, input);
      if (code)
        return {
          next: { status: 'declined', amount: input.amount, authorization_id: null, decline_code: code },
          outcome: { status: 'declined', code },
        };
      const authorized: PspPayment = current ?? {
        status: 'authorized',
        amount: input.amount,
        authorization_id: newAuthorizationId(),
        decline_code: null,
      };
      if (rules.lateCaptureUsers.includes(input.userId))
        return {
          next: { ...authorized, pending_capture: true },
          outcome: { status: 'declined', code: 'PSP_TIMEOUT' },
          late: true,
        };
      return {
        next: { ...authorized, status: 'captured', pending_capture: false },
        outcome: { status: 'captured', authorization_id: authorized.authorization_id ?? '' },
      };
    }
    case 'capture':
      if (current?.status === 'authorized' && rules.lateCaptureUsers.includes(input.userId))
        return {
          next: { ...current, pending_capture: true },
          outcome: { status: 'failed', code: 'PSP_TIMEOUT' },
          late: true,
        };
      if (current?.status === 'authorized')
        return { next: { ...current, status: 'captured' }, outcome: { status: 'captured' } };
      if (current?.status === 'captured' || current?.status === 'refunded')
        return { next: null, outcome: { status: 'captured' } };
      return {
        next: null,
        outcome: {
          status: 'failed',
          code: current ? `PAYMENT_${current.status.toUpperCase()}` : 'NOT_AUTHORIZED',
        },
      };
    case 'void':
      if (!current)
        return {
          next: { status: 'voided', amount: input.amount, authorization_id: null, decline_code: null },
          outcome: { status: 'voided' },
        };
      if (current.status === 'authorized')
        return {
          next: { ...current, status: 'voided', pending_capture: false },
          outcome: { status: 'voided' },
        };
      if (current.status === 'captured' || current.status === 'refunded')
        return { next: null, outcome: { status: 'already_captured' } };
      return { next: null, outcome: { status: 'voided' } };
    case 'refund':
      if (current?.status === 'captured')
        return { next: { ...current, status: 'refunded' }, outcome: { status: 'refunded' } };
      if (current?.status === 'refunded') return { next: null, outcome: { status: 'refunded' } };
      // Answered "nothing captured" — and then the late capture lands.
      if (current?.status === 'authorized' && current.pending_capture)
        return {
          next: { ...current, status: 'captured', pending_capture: false },
          outcome: { status: 'not_captured' },
        };
      return { next: null, outcome: { status: 'not_captured' } };
  }
}
