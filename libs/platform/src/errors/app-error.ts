import { isInfrastructureError } from './failure-class';

/**
 * Errors carry a stable code (`INVENTORY.INSUFFICIENT_STOCK`) and a kind; each transport maps
 * the kind to its own answer (HTTP status + problem body; Kafka retry or dead-letter).
 */
export type ErrorKind =
  | 'validation'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  /** A conditional request whose precondition (If-Match) does not hold: 412. */
  | 'precondition_failed'
  /** A write that must be conditional arrived without its precondition: 428 (RFC 6585). */
  | 'precondition_required'
  | 'unprocessable'
  | 'too_large'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

export interface FieldProblem {
  /** Dotted path of the offending field, e.g. `body.price` or `query.limit`. */
  readonly field: string;
  readonly message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: string,
    readonly kind: ErrorKind,
    message: string,
    readonly errors: readonly FieldProblem[] = [],
    /** Response headers an HTTP answer must carry (`Retry-After`, `Allow`, `WWW-Authenticate`). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  static validation(problems: readonly FieldProblem[], code = 'COMMON.VALIDATION_FAILED'): AppError {
    const first = problems[0];
    const summary = first ? `${first.field}: ${first.message}` : 'invalid input';
    return new AppError(code, 'validation', `Invalid input — ${summary}`, problems);
  }
  /** The input matches the documented schema but breaks a rule it cannot state (422; ADR 0007). */
  static unprocessable(problems: readonly FieldProblem[], code = 'COMMON.RULE_VIOLATED'): AppError {
    const first = problems[0];
    const summary = first ? `${first.field}: ${first.message}` : 'input breaks a rule';
    return new AppError(code, 'unprocessable', `Cannot be done — ${summary}`, problems);
  }
  static notFound(code: string, message: string): AppError {
    return new AppError(code, 'not_found', message);
  }
  static conflict(code: string, message: string): AppError {
    return new AppError(code, 'conflict', message);
  }
}

export function assertUnreachable(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}

export function httpStatusOf(kind: ErrorKind): number {
  switch (kind) {
    case 'validation':
      return 400;
    case 'unauthenticated':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'conflict':
      return 409;
    case 'precondition_failed':
      return 412;
    case 'precondition_required':
      return 428;
    case 'too_large':
      return 413;
    case 'unprocessable':
      return 422;
    case 'rate_limited':
      return 429;
    case 'unavailable':
      return 503;
    case 'internal':
      return 500;
    default:
      return assertUnreachable(kind);
  }
}

/**
 * Kafka handling of a failed message (ADR 0004):
 * - `wait`: a dependency is down or overloaded (an `unavailable` AppError, a driver's network,
 *   server-selection, not-primary or timeout error, a handler attempt past its deadline) — the
 *   message is fine, so hold the partition and try again until the dependency is back; never
 *   dead-letter it;
 * - `dead-letter`: the message can never succeed (invalid, a domain rejection that cannot be
 *   answered) — park it at once;
 * - `retry`: anything else, most likely a bug — a few attempts, then the dead-letter topic.
 */
export type KafkaAction = 'wait' | 'retry' | 'dead-letter';

export function kafkaActionOf(error: unknown): KafkaAction {
  if (!(error instanceof AppError)) return isInfrastructureError(error) ? 'wait' : 'retry';
  switch (error.kind) {
    case 'unavailable':
    case 'rate_limited':
      return 'wait';
    case 'internal':
      return 'retry';
    case 'validation':
    case 'not_found':
    case 'conflict':
    case 'precondition_failed':
    case 'precondition_required':
    case 'unprocessable':
    case 'too_large':
    case 'unauthenticated':
    case 'forbidden':
    case 'method_not_allowed':
      return 'dead-letter';
    default:
      return assertUnreachable(error.kind);
  }
}
