import { OutboxRelay } from '@mw/messaging';

/** Where writers ask the relay to publish soon after an outbox write. */
export class OutboxNudge {
  private relay: OutboxRelay | undefined;
  attach(relay: OutboxRelay): void {
    this.relay = relay;
  }
  nudge(): void {
    this.relay?.nudge();
  }
}
