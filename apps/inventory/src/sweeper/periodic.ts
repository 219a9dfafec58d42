import type { Logger } from 'pino';

/** Runs `task` every `intervalMs` (never overlapping), logs failures and keeps going; stop() waits for the current run. */
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly task: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.running = this.task()
        .then(() => undefined)
        .catch((e: unknown) => this.logger.warn({ task: this.name, err: (e as Error).message }, 'background task failed; will retry'))
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.schedule();
        });
    }, this.intervalMs);
  }
}
