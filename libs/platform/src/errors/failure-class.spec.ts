import { errors as cassandraErrors } from 'cassandra-driver';
import { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { MongoClient, MongoServerError, MongoWriteConcernError } from 'mongodb';
import { AppError, kafkaActionOf } from './app-error';
import { HandlerTimeoutError, isInfrastructureError } from './failure-class';

/** The drivers' own error classes (no mocks): what a handler really sees during an outage. */
describe('failure classes (ADR 0004)', () => {
  it('a real MongoDB server-selection failure (nothing listens on the port) is an outage: wait', async () => {
    const client = new MongoClient('mongodb://127.0.0.1:9/?directConnection=true', {
      serverSelectionTimeoutMS: 200,
    });
    const error = await client
      .db('x')
      .command({ ping: 1 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    await client.close();
    expect((error as Error).name).toBe('MongoServerSelectionError');
    expect(kafkaActionOf(error)).toBe('wait');
  });

  it('MongoDB not-primary, stepped-down, write-concern timeout and retryable labels wait; a duplicate key does not', () => {
    expect(kafkaActionOf(new MongoServerError({ code: 10107, errmsg: 'not primary' }))).toBe('wait');
    expect(
      kafkaActionOf(new MongoServerError({ code: 11602, errmsg: 'interrupted due to repl state change' })),
    ).toBe('wait');
    expect(
      kafkaActionOf(
        new MongoServerError({ code: 999999, errmsg: 'x', errorLabels: ['RetryableWriteError'] }),
      ),
    ).toBe('wait');
    expect(
      kafkaActionOf(
        new MongoWriteConcernError({
          writeConcernError: {
            code: 64,
            errmsg: 'waiting for replication timed out',
            errInfo: { wtimeout: true },
          },
        } as never),
      ),
    ).toBe('wait');
    expect(kafkaActionOf(new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key' }))).toBe(
      'retry',
    );
  });

  it('Cassandra: no host, operation timed out, unavailable / overloaded / timeouts wait; a syntax error does not', () => {
    expect(kafkaActionOf(new cassandraErrors.NoHostAvailableError({}))).toBe('wait');
    expect(kafkaActionOf(new cassandraErrors.OperationTimedOutError('timed out', '127.0.0.1:9042'))).toBe(
      'wait',
    );
    expect(
      kafkaActionOf(new cassandraErrors.ResponseError(0x1000, 'Cannot achieve consistency level QUORUM')),
    ).toBe('wait');
    expect(kafkaActionOf(new cassandraErrors.ResponseError(0x1100, 'write timeout'))).toBe('wait');
    expect(kafkaActionOf(new cassandraErrors.ResponseError(0x2000, 'line 1: syntax error'))).toBe('retry');
  });

  it('kafkajs: connection errors and retries exhausted on one wait; a non-retriable protocol error does not', () => {
    expect(kafkaActionOf(new KafkaJSConnectionError('Connection error: connect ECONNREFUSED'))).toBe('wait');
    expect(
      kafkaActionOf(
        new KafkaJSNumberOfRetriesExceeded(new KafkaJSConnectionError('Connection timeout'), {
          retryCount: 5,
          retryTime: 3000,
        }),
      ),
    ).toBe('wait');
    expect(
      kafkaActionOf(
        new KafkaJSProtocolError({
          message: 'leader moved',
          type: 'NOT_LEADER_FOR_PARTITION',
          code: 6,
          retriable: true,
        } as never),
      ),
    ).toBe('wait');
    expect(
      kafkaActionOf(
        new KafkaJSProtocolError({
          message: 'too large',
          type: 'MESSAGE_TOO_LARGE',
          code: 10,
          retriable: false,
        } as never),
      ),
    ).toBe('retry');
  });

  it('a node socket error, an unavailable AppError and a handler past its deadline wait', () => {
    expect(
      kafkaActionOf(
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { code: 'ECONNREFUSED' }),
      ),
    ).toBe('wait');
    expect(kafkaActionOf(new AppError('X.DOWN', 'unavailable', 'db down'))).toBe('wait');
    expect(kafkaActionOf(new HandlerTimeoutError(1000))).toBe('wait');
    expect(isInfrastructureError(new Error('wrapped', { cause: new KafkaJSConnectionError('x') }))).toBe(
      true,
    );
  });

  it('bugs retry a few times; deterministic rejections dead-letter at once', () => {
    expect(kafkaActionOf(new TypeError("Cannot read properties of undefined (reading 'qty')"))).toBe('retry');
    expect(kafkaActionOf(new AppError('X', 'internal', 'bug'))).toBe('retry');
    expect(kafkaActionOf(AppError.validation([]))).toBe('dead-letter');
    expect(kafkaActionOf(AppError.conflict('X', 'already committed'))).toBe('dead-letter');
  });
});
