import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { EnvelopeOf } from '@mw/contracts';
import { LOGGER } from '@mw/platform';
import { latestLevels, productWriteFor } from './product';
import { ProductsRepository } from './products.repository';

/** Runs the work of a batch's `index`-th event in its trace (the consumer runner's `BatchContext.within`). */
type InTraceOf = (index: number, fn: () => Promise<void>) => Promise<void>;

/** Keeps the carts' price and availability tables from catalog and inventory events. */
@Injectable()
export class ProductsService {
  constructor(
    private readonly repo: ProductsRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onCatalogEvent(e: EnvelopeOf<'catalog.products.v1'>): Promise<void> {
    const write = productWriteFor(e);
    await this.repo.apply(write);
    this.logger.debug(
      { product_id: e.payload.product_id, version: e.payload.version, type: e.type, write: write.kind },
      'product table updated',
    );
  }

  /**
   * A batch of catalog events: each one's write at its own timestamp, all at once — the writes are
   * order-independent (an older event is shadowed by a newer one's timestamp), so a batch needs no
   * order among them.
   */
  async onCatalogEvents(events: readonly EnvelopeOf<'catalog.products.v1'>[], within: InTraceOf): Promise<void> {
    await Promise.all(events.map((e, index) => within(index, () => this.repo.apply(productWriteFor(e)))));
  }

  /**
   * A batch of inventory events: the newest level per (product, zone), written together (unlogged
   * batches, `applyStocks`) in the trace of the chunk's first level; the saga's replies are ignored.
   */
  async onInventoryEvents(events: readonly EnvelopeOf<'inventory.events.v1'>[], within: InTraceOf): Promise<void> {
    const first = events.findIndex((e) => e.type === 'StockLevelChanged');
    if (first < 0) return;
    const levels = events.flatMap((e) => (e.type === 'StockLevelChanged' ? [e.payload] : []));
    await within(first, () => this.repo.applyStocks(latestLevels(levels)));
  }

  async onInventoryEvent(e: EnvelopeOf<'inventory.events.v1'>): Promise<void> {
    switch (e.type) {
      case 'StockLevelChanged':
        return this.repo.applyStock(e.payload);
      case 'StockReserved':
      case 'StockRejected':
      case 'StockReleased':
      case 'StockCommitted':
      case 'StockCommitFailed':
      case 'StockReturned':
      case 'StockReturnFailed':
        return; // the orders saga's business, not the carts' (a return's new level arrives as StockLevelChanged)
    }
  }
}
