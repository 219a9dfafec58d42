/**
 * Which start-up failures mean "a dependency is there but not ready" (an election in progress, a
 * broker or node just restarted or cut off) rather than "this cannot work" (a bad setting, a wrong
 * statement, refused credentials). A service restarted in the middle of a failover meets the first
 * kind; it waits and tries its start again instead of exiting (issue 32: restarted services exited
 * with "Primary stepped down while waiting for replication"). Errors are recognised by name and
 * code, walking their causes, so this module needs none of the drivers.
 */
import { isInfrastructureError } from '../errors/failure-class';

/** A socket error of a peer that is there but cut off, restarting or resetting (kafkajs puts it in the message). */
const NETWORK_BLIP = /\b(ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|ECONNABORTED)\b|Connection timeout/;

interface ErrorLike {
  readonly message?: unknown;
  readonly code?: unknown;
  readonly cause?: unknown;
  readonly originalError?: unknown;
}

/** The error and its causes (`cause`, kafkajs' `originalError`), outermost first. */
function chainOf(error: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  let cur = error as ErrorLike | undefined;
  for (let depth = 0; cur && typeof cur === 'object' && depth < 8; depth++) {
    chain.push(cur);
    cur = (cur.cause ?? cur.originalError) as ErrorLike | undefined;
  }
  return chain;
}

/** True when the error, or one of its causes, is a dependency not ready yet. */
export function isTransientStartError(error: unknown): boolean {
  // the consumers' outage classifier (ADR 0004), plus a reset only a message tells (a SASL handshake cut off)
  return isInfrastructureError(error) || chainOf(error).some((e) => typeof e.message === 'string' && NETWORK_BLIP.test(e.message));
}

/**
 * Every address refused the connection: nothing listens there (not started, or the wrong address).
 * A start does not wait for that — the developer is told at once what to start — while a reset,
 * a timeout or an unreachable host (a peer restarting or cut off) is waited out.
 */
export function isRefusedOutright(error: unknown): boolean {
  return chainOf(error).some((e) => e.code === 'ECONNREFUSED' || (typeof e.message === 'string' && /\bECONNREFUSED\b/.test(e.message)));
}

/** Wait before the n-th new attempt (n ≥ 1): 1 s doubling up to 10 s. */
export function startRetryDelayMs(attempt: number): number {
  return Math.min(10_000, 1000 * 2 ** Math.max(0, attempt - 1));
}
