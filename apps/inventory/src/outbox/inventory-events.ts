import { createMessage, OutgoingMessage, PayloadOf } from '@mw/contracts';
import { outgoingTrace } from '@mw/platform';

type EventType =
  | 'StockReserved'
  | 'StockRejected'
  | 'StockReleased'
  | 'StockCommitted'
  | 'StockCommitFailed'
  | 'StockReturned'
  | 'StockReturnFailed'
  | 'StockLevelChanged';

/**
 * Builds validated inventory.events.v1 messages for the outbox, in the current trace
 * (correlation of the saga, causation = the command being handled), on the configured topic.
 */
export class InventoryEvents {
  constructor(private readonly topic: string) {}

  build<M extends EventType>(type: M, payload: PayloadOf<'inventory.events.v1', M>): OutgoingMessage {
    const msg = createMessage('inventory.events.v1', type, payload, outgoingTrace());
    return { ...msg, topic: this.topic } as OutgoingMessage;
  }
}
