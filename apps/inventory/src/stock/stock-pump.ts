import type { Logger } from 'pino';
import { Periodic } from '@mw/platform';

/** An idle pass polls at most once per this many intervals. */
export const IDLE_FACTOR = 8;

/**
 * Who wants to hear that a stock document changed (its level or its pending ledger entries): the
 * background passes that would otherwise poll for it. In-process only; another instance's changes
 * are found by the (backed-off) poll.
 */
export class StockActivity {
  private readonly listeners: (() => void)[] = [];

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/**
 * A background pass over stock documents (the stock pass: levels and ledger) that costs nothing while
 * there is nothing to do: every `intervalMs` while the task finds work (it answers how much), backed
 * off up to IDLE_FACTOR × `intervalMs` while it finds none (`Periodic` idleMaxMs). A stock write in
 * this process while it is backed off runs it at once (a kick during a run schedules another run
 * right after it, so a write the running poll missed is not left for the backed-off wait). At its
 * interval a write does not kick it, so a busy product still coalesces into one pass per interval.
 */
export function stockPump(
  name: string,
  intervalMs: number,
  task: () => Promise<number>,
  activity: StockActivity,
  logger: Logger,
): Periodic {
  const loop = new Periodic(name, intervalMs, task, logger, { idleMaxMs: intervalMs * IDLE_FACTOR });
  activity.onChange(() => {
    if (loop.currentDelayMs > intervalMs) loop.kick();
  });
  return loop;
}
