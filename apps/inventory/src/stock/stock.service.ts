import type { Logger } from 'pino';
import { AppError } from '@mw/platform';
import { OutboxNudge } from '../outbox/outbox.service';
import { StockRepository } from './stock.repository';
import { StockLevel, emptyLevel, toLevel } from './stock';
import { etagOf, type StockActor } from './stock-writes';

/** Stock use cases behind the HTTP API. */
export class StockService {
  constructor(
    private readonly stock: StockRepository,
    private readonly outbox: OutboxNudge,
    private readonly config: { readonly ZONES: readonly string[]; readonly INVENTORY_LOW_STOCK_THRESHOLD: number },
    private readonly logger: Logger,
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

  /**
   * Receives units once per Idempotency-Key: a repeat of the same request answers the level the
   * first one answered and adds nothing; the key with another request is a 422 naming the header.
   */
  async restock(productId: string, zone: string, qty: number, reason: string, key: string, by: StockActor): Promise<StockLevel> {
    this.assertZone(zone);
    const r = await this.stock.restock(productId, zone, qty, reason, { key, by });
    const where = { product_id: productId.toLowerCase(), zone, idempotency_key: key, by };
    switch (r.kind) {
      case 'restocked':
        this.logger.info({ ...where, qty, reason, version: r.doc.version, available: r.doc.available }, 'restock');
        this.outbox.nudge();
        return toLevel(r.doc);
      case 'replay':
        this.logger.info({ ...where, qty, first_by: r.first.by, first_at: r.first.at }, 'restock repeated: the first answer, nothing added');
        return { product_id: r.product_id, zone: r.zone, ...r.first.level, updated_at: r.first.at.toISOString() };
      case 'reused':
        this.logger.warn({ ...where, qty, first_qty: r.first.qty, first_by: r.first.by }, 'restock key reused for another request: refused');
        throw AppError.unprocessable(
          [{ field: 'headers.idempotency-key', message: `already used for another restock here (qty ${r.first.qty}, reason "${r.first.reason}"); use a new key` }],
          'INVENTORY.IDEMPOTENCY_KEY_REUSED',
        );
    }
  }

  /**
   * A stock-take counted against the version `expected` (If-Match): applied only if the stock has
   * not changed since, else 412 INVENTORY.STALE_VERSION with the current ETag.
   */
  async set(productId: string, zone: string, available: number, reason: string, expected: number, by: StockActor): Promise<StockLevel> {
    this.assertZone(zone);
    const where = { product_id: productId.toLowerCase(), zone, by, if_match: expected };
    const doc = await this.stock.setAvailable(productId, zone, available, reason, expected, by);
    if ('stale' in doc) {
      this.logger.warn({ ...where, version: doc.stale, available }, 'stock-take refused: the stock changed since the count');
      throw new AppError(
        'INVENTORY.STALE_VERSION',
        'precondition_failed',
        `the stock is at version ${doc.stale}, not ${expected}: it changed since the count; read it again (GET /stock/{productId}/{zone}) and recount`,
        [{ field: 'headers.if-match', message: `current ETag is ${etagOf(doc.stale)}` }],
        { ETag: etagOf(doc.stale) },
      );
    }
    this.logger.info({ ...where, available: doc.available, version: doc.version, reason }, 'stock-take');
    this.outbox.nudge();
    return toLevel(doc);
  }

  /** One zone's level (zeros and version 0 where never stocked); its version is the stock-take's ETag. */
  async inZone(productId: string, zone: string): Promise<StockLevel> {
    this.assertZone(zone);
    const doc = await this.stock.findOne(productId, zone);
    return doc ? toLevel(doc) : emptyLevel(productId.toLowerCase(), zone);
  }

  /** Every configured zone, zero where the product has no stock document. */
  async ofProduct(productId: string): Promise<StockLevel[]> {
    const docs = new Map((await this.stock.forProduct(productId)).map((d) => [d.zone, d]));
    return this.config.ZONES.map((zone) => {
      const d = docs.get(zone);
      return d ? toLevel(d) : emptyLevel(productId.toLowerCase(), zone);
    });
  }

  /** A page of products in one zone, in the order asked, 0 where never stocked: one query. */
  async availability(zone: string, productIds: readonly string[]): Promise<{ zone: string; items: { product_id: string; available: number }[] }> {
    this.assertZone(zone, 'query.zone');
    const found = new Map((await this.stock.availableIn(zone, productIds)).map((d) => [d.product_id, d.available]));
    return { zone, items: productIds.map((product_id) => ({ product_id, available: found.get(product_id) ?? 0 })) };
  }

  async lowStock(zone: string, threshold: number | undefined, limit: number): Promise<{ zone: string; threshold: number; items: StockLevel[] }> {
    this.assertZone(zone, 'query.zone');
    const t = threshold ?? this.config.INVENTORY_LOW_STOCK_THRESHOLD;
    const docs = await this.stock.lowStock(zone, t, limit);
    return { zone, threshold: t, items: docs.map((d) => toLevel({ ...d, reservations: [] })) };
  }
}
