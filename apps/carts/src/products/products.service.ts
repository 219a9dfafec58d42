import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { EnvelopeOf } from '@mw/contracts';
import { LOGGER } from '@mw/platform';
import { productWriteFor } from './product';
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
