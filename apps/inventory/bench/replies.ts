/**
 * The inventory benchmark's reply bookkeeping (issue #22 item 14): the first reply per order id, and
 * how many of the *running* scenario's commands are answered. A reply to an earlier scenario's
 * command that arrives late is recorded but never counted as this scenario's — a shared counter
 * would let it shrink the in-flight count and send more commands than the scenario's limit.
 */
export interface Reply {
  readonly at: number;
  readonly type: string;
}

export class ReplyTracker {
  private readonly first = new Map<string, Reply>();
  private current: { readonly sent: Map<string, number>; answered: number } | undefined;

  /** Starts a scenario: from now on only replies to its own commands count as answered. */
  begin(): void {
    this.current = { sent: new Map(), answered: 0 };
  }

  /** A command of the running scenario was sent at `at`. */
  sent(orderId: string, at: number): void {
    this.current?.sent.set(orderId, at);
  }

  /** A reply seen on the events topic (StockReserved / StockRejected); later copies are ignored. */
  reply(orderId: string, type: string, at: number): void {
    if (this.first.has(orderId)) return;
    this.first.set(orderId, { at, type });
    if (this.current?.sent.has(orderId)) this.current.answered++;
  }

  /** Commands of the running scenario not answered yet. */
  get outstanding(): number {
    return this.current ? this.current.sent.size - this.current.answered : 0;
  }

  /** The running scenario's commands (order id → sent at). */
  get sentNow(): ReadonlyMap<string, number> {
    return this.current?.sent ?? new Map();
  }

  replyTo(orderId: string): Reply | undefined {
    return this.first.get(orderId);
  }

  /** Ends the running scenario. */
  end(): void {
    this.current = undefined;
  }
}
