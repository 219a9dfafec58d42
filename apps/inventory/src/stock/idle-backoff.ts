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
 * Makes a periodic poll cost nothing while there is nothing to do: after k empty polls in a row only
 * every min(2^k, `maxFactor`)-th tick polls, so an idle service costs one poll per `maxFactor` ticks.
 * `wake()` (a local write that gives the poll work) makes the next tick poll; a wake that arrives
 * while a poll runs is kept, so a change that poll missed is looked for at the next tick, never
 * after a backed-off wait.
 */
export class IdleBackoff {
  private idle = 0;
  private skip = 0;
  private woken = false;

  constructor(private readonly maxFactor = 8) {}

  wake(): void {
    this.woken = true;
    this.idle = 0;
    this.skip = 0;
  }

  /** One tick: polls unless backed off; returns what the poll found (0 when skipped or empty). */
  async tick(poll: () => Promise<number>): Promise<number> {
    if (this.skip > 0) {
      this.skip--;
      return 0;
    }
    this.woken = false;
    const found = await poll();
    this.idle = found > 0 || this.woken ? 0 : this.idle + 1;
    this.skip = this.idle === 0 ? 0 : Math.min(2 ** this.idle, this.maxFactor) - 1;
    return found;
  }
}
