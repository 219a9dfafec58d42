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
 * Runs `task` every `intervalMs` (never overlapping), logs failures and keeps going; `kick()` runs
 * it soon (a kick during a run schedules another run right after it — never dropped); stop() waits
 * for the current run. With `idleMaxMs`, an idle task is polled less and less often.
 */
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private again = false;
  private delay: number;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly task: () => Promise<unknown>,
    private readonly logger: Logger,
    private readonly opts: PeriodicOptions = {},
  ) {
    this.delay = intervalMs;
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
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private next(result: unknown): void {
    const idle = result === 0 || result === false;
    const max = this.opts.idleMaxMs;
    this.delay = idle && max !== undefined ? Math.min(max, Math.max(this.intervalMs, this.delay * 2)) : this.intervalMs;
  }

  private schedule(delay: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      // a poll belongs to no request's trace (a kick comes from one): its own queries are not traced;
      // the work it finds continues the trace stored with it (ADR 0014)
      this.running = untraced(() => this.task())
        .then((result) => this.next(result))
        .catch((e: unknown) => {
          this.delay = this.intervalMs;
          this.logger.warn({ task: this.name, err: (e as Error).message }, 'background task failed; will retry');
        })
        .finally(() => {
          this.running = undefined;
          const soon = this.again;
          this.again = false;
          if (!this.stopped) this.schedule(soon ? 0 : this.delay);
        });
    }, delay);
  }
}
