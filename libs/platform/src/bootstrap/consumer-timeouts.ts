import { DynamicModule, Global, Module } from '@nestjs/common';

/**
 * The three clocks of a Kafka consumer (ADR 0004). The member sends a heartbeat every
 * `heartbeatIntervalMs`; the coordinator drops it after `sessionTimeoutMs` without one and hands
 * its partitions to another member. One handler attempt gets `handlerTimeoutMs`, below the session
 * timeout, so a cooperative handler has stopped before the group could give its record away.
 */
export interface ConsumerTimeouts {
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly handlerTimeoutMs: number;
}

export const defaultConsumerTimeouts: ConsumerTimeouts = {
  sessionTimeoutMs: 30_000,
  heartbeatIntervalMs: 3_000,
  handlerTimeoutMs: 20_000,
};

/** Injection token of the service's ConsumerTimeouts (provided by runService; absent → defaults). */
export const KAFKA_CONSUMER_TIMEOUTS = Symbol.for('mw.KAFKA_CONSUMER_TIMEOUTS');

/** What is wrong with a set of timeouts, in the names of the environment variables. */
export function consumerTimeoutProblems(t: ConsumerTimeouts): string[] {
  const problems: string[] = [];
  if (t.handlerTimeoutMs >= t.sessionTimeoutMs) {
    problems.push(
      `KAFKA_HANDLER_TIMEOUT_MS (${t.handlerTimeoutMs}) must be below KAFKA_SESSION_TIMEOUT_MS (${t.sessionTimeoutMs})`,
    );
  }
  if (t.heartbeatIntervalMs * 3 > t.sessionTimeoutMs) {
    problems.push(
      `KAFKA_HEARTBEAT_INTERVAL_MS (${t.heartbeatIntervalMs}) must be at most a third of KAFKA_SESSION_TIMEOUT_MS (${t.sessionTimeoutMs})`,
    );
  }
  return problems;
}

/** Makes the service's consumer timeouts visible to every module (the consumer runner reads them). */
@Global()
@Module({})
export class ConsumerTimeoutsModule {
  static forRoot(timeouts: ConsumerTimeouts): DynamicModule {
    return {
      module: ConsumerTimeoutsModule,
      providers: [{ provide: KAFKA_CONSUMER_TIMEOUTS, useValue: timeouts }],
      exports: [KAFKA_CONSUMER_TIMEOUTS],
    };
  }
}
