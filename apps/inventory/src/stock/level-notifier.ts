import { InventoryEvents } from '../outbox/inventory-events';
import { IdleBackoff } from './idle-backoff';
import { StockRepository } from './stock.repository';

/**
 * Publishes StockLevelChanged for documents whose `available` moved, coalescing bursts (a hot
 * product under load yields one event per pass, not one per reservation). The event is written
 * into the document's outbox only if the version read is still current, so the level and version
 * it carries are exact; read models drop events with an older version.
 *
 * A pass costs one read of the dirty documents and, if there are any, one bulkWrite for all of them.
 * While nothing is dirty the read backs off (`IdleBackoff`); a stock write in this process wakes it.
 */
export class LevelNotifier {
  private readonly backoff: IdleBackoff;

  constructor(
    private readonly stock: StockRepository,
    private readonly events: InventoryEvents,
    maxIdleFactor = 8,
  ) {
    this.backoff = new IdleBackoff(maxIdleFactor);
    stock.activity.onChange(() => this.backoff.wake());
  }

  /** One tick of the periodic pass: a backed-off `notifyOnce`; returns how many events were stored. */
  async tick(limit = 200): Promise<number> {
    let published = 0;
    await this.backoff.tick(async () => {
      const pass = await this.notifyOnce(limit);
      published = pass.published;
      return pass.dirty;
    });
    return published;
  }

  /** One pass: `dirty` documents read, `published` events stored (the others moved meanwhile). */
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
