import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { EnvelopeOf } from '@mw/contracts';
import { LOGGER } from '@mw/platform';
import { latestLevels, productWriteFor, type StockLevel } from './product';
import { ProductsRepository } from './products.repository';

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
  async onCatalogEvents(events: readonly EnvelopeOf<'catalog.products.v1'>[]): Promise<void> {
    await Promise.all(events.map((e) => this.repo.apply(productWriteFor(e))));
  }

  /** A batch of inventory events: the newest level per (product, zone), written at once; the saga's replies are ignored. */
  async onInventoryEvents(events: readonly EnvelopeOf<'inventory.events.v1'>[]): Promise<void> {
    const levels = events.flatMap((e): StockLevel[] => (e.type === 'StockLevelChanged' ? [e.payload] : []));
    await Promise.all(latestLevels(levels).map((l) => this.repo.applyStock(l)));
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
