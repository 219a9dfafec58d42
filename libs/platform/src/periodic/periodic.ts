import type { Logger } from 'pino';
import { untraced } from '../tracing/propagation';

export interface PeriodicOptions {
  /**
   * Idle backoff: a run whose task answers 0 or false (nothing to do) doubles the wait before the
   * next one, up to this bound; a run that did something, or a kick(), brings it back to
   * `intervalMs`. Unset: always `intervalMs`.
   */
  readonly idleMaxMs?: number;
}

/**
 * A task's answer that also says when its next work falls due (epoch ms; undefined: nothing known).
 * An idle wait then ends at that moment at the latest, never sooner than `intervalMs` — so a sweeper
 * sleeps until the earliest deadline it knows instead of polling for it.
 */
export interface DueAnswer {
  readonly work: number;
  readonly nextDueAt: number | undefined;
}

const isDueAnswer = (v: unknown): v is DueAnswer => typeof v === 'object' && v !== null && 'work' in v && 'nextDueAt' in v;

/** setTimeout may fire a millisecond before the due time; a deadline `<= now` query then misses it. */
const DUE_SLACK_MS = 5;

/**
 * Runs `task` every `intervalMs` (never overlapping), logs failures and keeps going; `kick()` runs
 * it soon (a kick during a run schedules another run right after it — never dropped); stop() waits
 * for the current run. With `idleMaxMs`, an idle task is polled less and less often; a task answering
 * a `DueAnswer`, or a `wakeBy(at)` from the code that just set a deadline, ends the wait at the
 * deadline instead.
 */
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private again = false;
  private delay: number;
  /** The idle backoff, apart from `delay` (a due time may shorten one wait without resetting it). */
  private backoff: number;
  /** When the scheduled run fires (epoch ms), while one is scheduled. */
  private scheduledAt: number | undefined;
  /** The earliest wakeBy() received during a run. */
  private wakeAt: number | undefined;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly task: () => Promise<unknown>,
    private readonly logger: Logger,
    private readonly opts: PeriodicOptions = {},
  ) {
    this.delay = intervalMs;
    this.backoff = intervalMs;
  }

  /** The wait before the next run when nothing kicks it (intervalMs, or more while idle). */
  get currentDelayMs(): number {
    return this.delay;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(this.intervalMs);
  }

  /** Run as soon as possible (after the current run, if one is in progress). */
  kick(): void {
    if (this.stopped) return;
    this.delay = this.intervalMs;
    this.backoff = this.intervalMs;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /**
   * Run no later than `at` (epoch ms): for code that just created a deadline the loop acts on (a hold
   * that expires, a saga step that times out). Earlier runs stay as scheduled; never drops a wake.
   */
  wakeBy(at: number): void {
    if (this.stopped) return;
    const due = at + DUE_SLACK_MS;
    if (this.running) {
      this.wakeAt = Math.min(this.wakeAt ?? Number.POSITIVE_INFINITY, due);
      return;
    }
    if (this.scheduledAt !== undefined && this.scheduledAt <= due) return;
    this.schedule(Math.max(0, due - Date.now()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private next(result: unknown): void {
    const due = isDueAnswer(result) ? result : undefined;
    const idle = due ? due.work === 0 : result === 0 || result === false;
    const max = this.opts.idleMaxMs;
    this.backoff = idle && max !== undefined ? Math.min(max, Math.max(this.intervalMs, this.backoff * 2)) : this.intervalMs;
    let delay = this.backoff;
    if (due?.nextDueAt !== undefined) delay = Math.min(delay, Math.max(this.intervalMs, due.nextDueAt + DUE_SLACK_MS - Date.now()));
    this.delay = delay;
  }

  private schedule(delay: number): void {
    clearTimeout(this.timer);
    this.scheduledAt = Date.now() + delay;
    this.timer = setTimeout(() => {
      this.scheduledAt = undefined;
      // a poll belongs to no request's trace (a kick comes from one): its own queries are not traced;
      // the work it finds continues the trace stored with it (ADR 0014)
      this.running = untraced(() => this.task())
        .then((result) => this.next(result))
        .catch((e: unknown) => {
          this.delay = this.intervalMs;
          this.backoff = this.intervalMs;
          this.logger.warn({ task: this.name, err: (e as Error).message }, 'background task failed; will retry');
        })
        .finally(() => {
          this.running = undefined;
          const soon = this.again;
          const wake = this.wakeAt;
          this.again = false;
          this.wakeAt = undefined;
          const wait = wake === undefined ? this.delay : Math.min(this.delay, Math.max(0, wake - Date.now()));
          if (!this.stopped) this.schedule(soon ? 0 : wait);
        });
    }, delay);
  }
}
