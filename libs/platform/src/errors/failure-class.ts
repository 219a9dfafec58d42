/**
 * Tells an outage of a dependency (MongoDB, Cassandra, Kafka, the network) from everything else,
 * without importing the drivers: their errors are recognised by name, code and label, so this
 * file stays a plain util. An infrastructure error says nothing about the message — the same
 * message succeeds once the dependency is back — so a consumer waits for it instead of
 * dead-lettering (ADR 0004).
 */

/** Raised by the consumer runner when one handler attempt runs past its deadline. */
export class HandlerTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`handler did not finish within ${timeoutMs} ms`);
    this.name = 'HandlerTimeoutError';
  }
}

const NODE_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
  'ENOTCONN',
]);

const MONGO_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoTopologyClosedError',
  'MongoNotConnectedError',
  'MongoOperationTimeoutError',
  'MongoPoolClearedError',
  'MongoServerClosedError',
  'MongoStalePrimaryError',
]);
const MONGO_LABELS = [
  'RetryableWriteError',
  'TransientTransactionError',
  'UnknownTransactionCommitResult',
  'ResetPool',
  'PoolRequestedRetry',
];
/** Server codes of an unavailable, stepping-down or overloaded replica set member, or a write concern timeout. */
const MONGO_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  50, // MaxTimeMSExpired
  64, // WriteConcernFailed (wtimeout)
  89, // NetworkTimeout
  91, // ShutdownInProgress
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

const CASSANDRA_NAMES = new Set(['NoHostAvailableError', 'OperationTimedOutError', 'BusyConnectionError']);
/** cassandra-driver responseErrorCodes: unavailable, overloaded, bootstrapping, write/read timeout. */
const CASSANDRA_CODES = new Set([0x1000, 0x1001, 0x1002, 0x1100, 0x1200]);

const KAFKA_NAMES = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSGroupCoordinatorNotFound',
  'KafkaJSLockTimeout',
  'KafkaJSNoBrokerAvailableError',
]);

interface ErrorLike {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly retriable?: unknown;
  readonly cause?: unknown;
  readonly originalError?: unknown;
  readonly hasErrorLabel?: unknown;
  readonly errInfo?: { readonly wtimeout?: unknown };
}

/** True when the error (or what caused it) is an outage or overload of a dependency, not a fault of the message. */
export function isInfrastructureError(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  const e = error as ErrorLike;
  if (error instanceof HandlerTimeoutError) return true;
  const name = typeof e.name === 'string' ? e.name : '';
  if (MONGO_NAMES.has(name) || CASSANDRA_NAMES.has(name) || KAFKA_NAMES.has(name)) return true;
  if (typeof e.code === 'string' && NODE_NETWORK_CODES.has(e.code)) return true;
  if (name.startsWith('Mongo')) {
    if (typeof e.code === 'number' && MONGO_CODES.has(e.code)) return true;
    if (e.errInfo?.wtimeout === true) return true;
    const has = e.hasErrorLabel;
    if (typeof has === 'function' && MONGO_LABELS.some((l) => has.call(error, l) === true)) return true;
  }
  if (name === 'ResponseError' && typeof e.code === 'number' && CASSANDRA_CODES.has(e.code)) return true;
  // kafkajs: a protocol error the client itself would retry (leader moved, not enough replicas, request timed out).
  if (name === 'KafkaJSProtocolError' && e.retriable === true) return true;
  // kafkajs gives up after its own retries with KafkaJSNumberOfRetriesExceeded wrapping the last error.
  return isInfrastructureError(e.cause, depth + 1) || isInfrastructureError(e.originalError, depth + 1);
}
