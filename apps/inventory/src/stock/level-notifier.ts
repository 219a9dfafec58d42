import { InventoryEvents } from '../outbox/inventory-events';
import { StockRepository } from './stock.repository';

/**
 * Publishes StockLevelChanged for documents whose `available` moved, coalescing bursts (a hot
 * product under load yields one event per pass, not one per reservation). The event is written
 * into the document's outbox only if the version read is still current, so the level and version
 * it carries are exact; read models drop events with an older version.
 */
export class LevelNotifier {
  constructor(
    private readonly stock: StockRepository,
    private readonly events: InventoryEvents,
  ) {}

  async notifyOnce(limit = 200): Promise<number> {
    let published = 0;
    for (const doc of await this.stock.dirtyLevels(limit)) {
      const message = this.events.build('StockLevelChanged', {
        product_id: doc.product_id,
        zone: doc.zone,
        available: Math.max(0, doc.available),
        version: doc.version,
      });
      if (await this.stock.publishLevel(doc, message)) published++;
    }
    return published;
  }
}
