import { AppError } from '@mw/platform';
import { OutboxNudge } from '../outbox/outbox.service';
import { StockRepository } from './stock.repository';
import { StockLevel, emptyLevel, toLevel } from './stock';

/** Stock use cases behind the HTTP API. */
export class StockService {
  constructor(
    private readonly stock: StockRepository,
    private readonly outbox: OutboxNudge,
    private readonly config: { readonly ZONES: readonly string[]; readonly INVENTORY_LOW_STOCK_THRESHOLD: number },
  ) {}

  /**
   * A well-formed zone the service does not serve: the document cannot list the zones (they are
   * configuration), so it is a 422 naming where the zone came from (ADR 0007: 400 or 422).
   */
  assertZone(zone: string, field: 'params.zone' | 'query.zone' = 'params.zone'): void {
    if (!this.config.ZONES.includes(zone)) {
      throw AppError.unprocessable([{ field, message: `unknown zone ${zone}; zones: ${this.config.ZONES.join(', ')}` }], 'INVENTORY.UNKNOWN_ZONE');
    }
  }

  async restock(productId: string, zone: string, qty: number, reason: string): Promise<StockLevel> {
    this.assertZone(zone);
    const doc = await this.stock.restock(productId, zone, qty, reason);
    this.outbox.nudge();
    return toLevel(doc);
  }

  async set(productId: string, zone: string, available: number, reason: string): Promise<StockLevel> {
    this.assertZone(zone);
    const doc = await this.stock.setAvailable(productId, zone, available, reason);
    if (doc === 'conflict') throw AppError.conflict('INVENTORY.CONCURRENT_UPDATE', 'stock kept changing; try again');
    this.outbox.nudge();
    return toLevel(doc);
  }

  /** Every configured zone, zero where the product has no stock document. */
  async ofProduct(productId: string): Promise<StockLevel[]> {
    const docs = new Map((await this.stock.forProduct(productId)).map((d) => [d.zone, d]));
    return this.config.ZONES.map((zone) => {
      const d = docs.get(zone);
      return d ? toLevel(d) : emptyLevel(productId.toLowerCase(), zone);
    });
  }

  async lowStock(zone: string, threshold: number | undefined, limit: number): Promise<{ zone: string; threshold: number; items: StockLevel[] }> {
    this.assertZone(zone, 'query.zone');
    const t = threshold ?? this.config.INVENTORY_LOW_STOCK_THRESHOLD;
    const docs = await this.stock.lowStock(zone, t, limit);
    return { zone, threshold: t, items: docs.map((d) => toLevel({ ...d, reservations: [] })) };
  }
}
