import type { Logger } from 'pino';

/** Kafka error types that mean this member no longer owns what it was given (kafkajs protocol error `type`). */
const LOST_MEMBERSHIP = new Set([
  'REBALANCE_IN_PROGRESS',
  'ILLEGAL_GENERATION',
  'UNKNOWN_MEMBER_ID',
  'FENCED_INSTANCE_ID',
  'NOT_COORDINATOR_FOR_GROUP',
]);

/** True when a heartbeat failed because the group rebalanced or dropped this member. */
export function isLostMembership(error: unknown): boolean {
  const type = (error as { type?: unknown } | null)?.type;
  return typeof type === 'string' && LOST_MEMBERSHIP.has(type);
}

/**
 * Keeps a member in its group while one record is worked on: kafkajs only heartbeats between
 * messages, so a slow handler or a long wait for a dependency would let the session expire and
 * hand the partition to another member while this one still works on the record. It calls the
 * consumer's heartbeat every `everyMs` (kafkajs sends at most one per heartbeatInterval) and
 * remembers when the answer says the group has rebalanced, so the runner stops instead of
 * finishing a record that now belongs to someone else. Sleeps end early on that news or on stop.
 */
export class Membership {
  private lostError: unknown;
  private beating = false;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly sleepers = new Set<() => void>();

  constructor(
    private readonly heartbeat: (() => Promise<void>) | undefined,
    everyMs: number,
    private readonly logger: Logger,
  ) {
    if (heartbeat) this.timer = setInterval(() => void this.beat(), everyMs);
  }

  /** The heartbeat error that told this member it lost the record's partition, if any. */
  get lost(): unknown {
    return this.lostError;
  }

  async beat(): Promise<void> {
    if (!this.heartbeat || this.lostError !== undefined || this.beating) return;
    this.beating = true;
    try {
      await this.heartbeat();
    } catch (e) {
      if (isLostMembership(e)) {
        this.lostError = e;
        this.wake();
      } else {
        // The coordinator is unreachable (a Kafka outage): keep working, the next beat tries again.
        this.logger.debug({ err: (e as Error).message }, 'heartbeat failed');
      }
    } finally {
      this.beating = false;
    }
  }

  /** Waits `ms`, or less when membership is lost or `wake()` is called. */
  sleep(ms: number): Promise<void> {
    if (this.lostError !== undefined) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(t);
        this.sleepers.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  wake(): void {
    for (const s of [...this.sleepers]) s();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.wake();
  }
}
