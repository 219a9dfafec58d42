import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { EnvelopeOf } from '@mw/contracts';
import { LOGGER } from '@mw/platform';
import { latestLevels, productWriteFor, type StockLevel } from './product';
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

  /** A batch of inventory events: the newest level per (product, zone), written at once; the saga's replies are ignored. */
  async onInventoryEvents(events: readonly EnvelopeOf<'inventory.events.v1'>[], within: InTraceOf): Promise<void> {
    const indexOf = new Map<StockLevel, number>();
    for (const [index, e] of events.entries()) if (e.type === 'StockLevelChanged') indexOf.set(e.payload, index);
    // each write in the trace of the event it comes from
    await Promise.all(latestLevels([...indexOf.keys()]).map((l) => within(indexOf.get(l) ?? 0, () => this.repo.applyStock(l))));
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
