import { InventoryEvents } from '../outbox/inventory-events';
import { StockRepository } from './stock.repository';

/**
 * Publishes StockLevelChanged for documents whose `available` moved, coalescing bursts (a hot
 * product under load yields one event per pass, not one per reservation). The event is written
 * into the document's outbox only if the version read is still current, so the level and version
 * it carries are exact; read models drop events with an older version.
 *
 * A pass costs one read of the dirty documents and, if there are any, one bulkWrite for all of them;
 * it runs as a `stockPump`, so an idle period costs a backed-off read and no write.
 */
export class LevelNotifier {
  constructor(
    private readonly stock: StockRepository,
    private readonly events: InventoryEvents,
  ) {}

  /** One pass: `dirty` documents read, `published` events stored (the others moved meanwhile: next pass). */
  async notifyOnce(limit = 200): Promise<{ dirty: number; published: number }> {
    const docs = await this.stock.dirtyLevels(limit);
    const published = await this.stock.publishLevels(
      docs.map((doc) => ({
        doc,
        message: this.events.build('StockLevelChanged', {
          product_id: doc.product_id,
          zone: doc.zone,
          available: Math.max(0, doc.available),
          version: doc.version,
        }),
      })),
    );
    return { dirty: docs.length, published };
  }
}
