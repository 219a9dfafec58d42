import type { OutgoingMessage } from '@mw/contracts';
import { InventoryEvents } from '../outbox/inventory-events';
import { StockRepository } from './stock.repository';

/** Where the notifier sends its events: the service's idempotent producer (acks=all). */
export interface LevelPublisher {
  publishAll(messages: readonly OutgoingMessage[]): Promise<void>;
}

/**
 * Publishes StockLevelChanged for documents whose `available` moved, coalescing bursts (a hot
 * product under load yields one event per pass, not one per reservation). Each event carries the
 * level and version read from the document; read models keep the newest version (carts writes it
 * `USING TIMESTAMP` version), so an event older than one they have, or repeated, changes nothing.
 *
 * Straight to Kafka, not through the outbox (ADR 0040 "Level notifications"): the change is
 * already durable in the document (`level_dirty`), so the flag is the outbox. A pass reads the
 * dirty documents, publishes their levels (acks=all), then clears the flag of each document still
 * at the version it read, in one bulkWrite. A crash between the two publishes the level again; a
 * document that moved meanwhile stays dirty and the next pass publishes its newer level. One write
 * per pass instead of the outbox's two (store, then the relay's removal) and no relay round.
 * It runs as a `stockPump`: an idle period costs a backed-off read and no write.
 */
export class LevelNotifier {
  constructor(
    private readonly stock: StockRepository,
    private readonly events: InventoryEvents,
    private readonly publisher: LevelPublisher,
  ) {}

  /** One pass: `dirty` documents read and published, `cleared` of them still at that version (the others: next pass). */
  async notifyOnce(limit = 200): Promise<{ dirty: number; cleared: number }> {
    const docs = await this.stock.dirtyLevels(limit);
    if (docs.length === 0) return { dirty: 0, cleared: 0 };
    await this.publisher.publishAll(
      docs.map((doc) =>
        this.events.build('StockLevelChanged', {
          product_id: doc.product_id,
          zone: doc.zone,
          available: Math.max(0, doc.available),
          version: doc.version,
        }),
      ),
    );
    return { dirty: docs.length, cleared: await this.stock.clearLevels(docs) };
  }
}
