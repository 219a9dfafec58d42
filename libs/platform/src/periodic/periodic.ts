import type { Logger } from 'pino';

/** Runs `task` every `intervalMs` (never overlapping), logs failures and keeps going; `kick()` runs it soon; stop() waits for the current run. */
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private again = false;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly task: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(this.intervalMs);
  }

  /** Run as soon as possible (after the current run, if one is in progress). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delay: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.task()
        .then(() => undefined)
        .catch((e: unknown) => this.logger.warn({ task: this.name, err: (e as Error).message }, 'background task failed; will retry'))
        .finally(() => {
          this.running = undefined;
          const soon = this.again;
          this.again = false;
          if (!this.stopped) this.schedule(soon ? 0 : this.intervalMs);
        });
    }, delay);
  }
}
