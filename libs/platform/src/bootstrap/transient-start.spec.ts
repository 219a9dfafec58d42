import { errors as cassandraErrors } from 'cassandra-driver';
import { KafkaJSConnectionError, KafkaJSNonRetriableError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { MongoNetworkError, MongoServerError, MongoServerSelectionError, MongoWriteConcernError } from 'mongodb';
import { isRefusedOutright, isTransientStartError, startRetryDelayMs } from './transient-start';

/** The drivers' own error classes, as a start meets them. */
describe('isTransientStartError', () => {
  it('takes an election, a restart or a cut link for transient', () => {
    const stepDown = new MongoWriteConcernError({ writeConcernError: { code: 189, codeName: 'PrimarySteppedDown', errmsg: 'Primary stepped down while waiting for replication' } } as never);
    expect(isTransientStartError(stepDown)).toBe(true);
    expect(isTransientStartError(new MongoServerError({ message: 'not primary', code: 10107 }))).toBe(true);
    expect(isTransientStartError(new MongoNetworkError('connection reset'))).toBe(true);
    expect(isTransientStartError(new MongoServerSelectionError('Server selection timed out after 30000 ms', {} as never))).toBe(true);
    expect(isTransientStartError(new KafkaJSConnectionError('Connection timeout'))).toBe(true);
    expect(isTransientStartError(new KafkaJSNumberOfRetriesExceeded(new KafkaJSConnectionError('Connection timeout'), { retryCount: 5, retryTime: 3000 }))).toBe(true);
    expect(isTransientStartError(new cassandraErrors.OperationTimedOutError('The host 198.18.0.23:9042 did not reply before timeout 12000 ms'))).toBe(true);
    expect(isTransientStartError(new cassandraErrors.ResponseError(0x1000, 'Cannot achieve consistency level LOCAL_QUORUM'))).toBe(true);
    expect(isTransientStartError(new Error('schema', { cause: new MongoServerError({ message: 'interrupted', code: 11602 }) }))).toBe(true);
  });

  it('takes a wrong setting or statement for what it is: no retry', () => {
    expect(isTransientStartError(new Error('KAFKA_REPLICATION_FACTOR is 3 but the cluster has 1 broker(s)'))).toBe(false);
    expect(isTransientStartError(new MongoServerError({ message: 'Authentication failed.', code: 18 }))).toBe(false);
    expect(isTransientStartError(new MongoServerError({ message: 'Index build failed: duplicate key', code: 11000 }))).toBe(false);
    expect(isTransientStartError(new KafkaJSProtocolError(Object.assign(new Error('Not authorized to access topics'), { type: 'TOPIC_AUTHORIZATION_FAILED', code: 29, retriable: false })))).toBe(false);
    expect(isTransientStartError(new KafkaJSNonRetriableError(new Error('SASL authentication failed')))).toBe(false);
    expect(isTransientStartError(new cassandraErrors.ResponseError(0x2000, 'line 1:7 no viable alternative'))).toBe(false);
    expect(isTransientStartError(undefined)).toBe(false);
    expect(isTransientStartError('text')).toBe(false);
  });

  it('takes a reset on the way to the brokers for transient, a refusal everywhere for nothing listening', () => {
    const reset = new Error('SASL SCRAM SHA512 authentication failed: Connection error: read ECONNRESET');
    expect(isTransientStartError(new Error('Kafka unreachable at 198.18.0.11:9092', { cause: reset }))).toBe(true);
    expect(isRefusedOutright(new Error('Kafka unreachable', { cause: reset }))).toBe(false);
    const refused = new KafkaJSNumberOfRetriesExceeded(Object.assign(new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), { retryCount: 2, retryTime: 600 });
    expect(isTransientStartError(refused)).toBe(true);
    expect(isRefusedOutright(new Error('Kafka unreachable at 127.0.0.1:1', { cause: refused }))).toBe(true);
    expect(isTransientStartError(new Error('SASL SCRAM SHA512 authentication failed: invalid credentials'))).toBe(false);
  });

  it('waits 1 s, doubling up to 10 s', () => {
    expect([1, 2, 3, 4, 5, 9].map(startRetryDelayMs)).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);
  });
});
