import type { Logger } from 'pino';
import { DueAnswer, assertUnreachable } from '@mw/platform';
import { ReservationsRepository } from '../reservations/reservations.repository';
import { ReservationsService } from '../reservations/reservations.service';
import { ownerOfHold, settledAsOf, undoKindOf } from '../reservations/reservation';
import { StockRepository } from '../stock/stock.repository';

export interface SweepReport {
  expired: number;
  settled: number;
  resumed: number;
  orphans: number;
}

/**
 * Expiry and crash recovery, modelled on seed 004's expire_carts + two-pass cleanup_inventory:
 *  1. reserved orders past expires_at → expired (one conditional update wins per order, carrying
 *     StockReleased{expired}), then their holds go back to available;
 *  2. orders whose pending work (undo/commit/return) a crash left unfinished → finished;
 *  3. orders stuck in `reserving` (their processor died) → resumed;
 *  4. holds past their expiry on stock documents: first pass looks up each hold's order and skips
 *     those still live, second pass returns holds of closed or unknown orders and completes a hold
 *     as a sale only while the order's commit is still being applied (`ownerOfHold`: `selling`); a
 *     hold of a sold order whose sale is applied is stray (taken again by a stale processor) and
 *     goes back — it is never sold a second time; nor is a hold of a returned order.
 * Every step is idempotent and conditional, so several instances may sweep at once and a crash at
 * any point is repaired by the next sweep.
 */
export class Sweeper {
  constructor(
    private readonly reservations: ReservationsRepository,
    private readonly stock: StockRepository,
    private readonly service: ReservationsService,
    private readonly staleAfterMs: number,
    private readonly logger: Logger,
    private readonly batch = 200,
  ) {}

  /**
   * One pass, then when the next reserved order expires (one indexed read), so the loop sleeps
   * until then instead of polling every second. Holds this process takes wake it
   * (`ReservationsService.onExpirySet`); crash leftovers (stale pending work, stranded reservations,
   * orphan holds) are found by the idle bound, after their INVENTORY_STALE_AFTER_MS anyway.
   */
  async sweepAndPlan(now = new Date()): Promise<DueAnswer> {
    const r = await this.sweepOnce(now);
    const next = await this.reservations.earliestExpiry();
    return { work: r.expired + r.settled + r.resumed + r.orphans, nextDueAt: next?.getTime() };
  }

  async sweepOnce(now = new Date()): Promise<SweepReport> {
    const report: SweepReport = { expired: 0, settled: 0, resumed: 0, orphans: 0 };
    const stale = new Date(now.getTime() - this.staleAfterMs);
    for (const doc of await this.reservations.expiredReserved(now, this.batch)) {
      await this.service.expire(doc._id, now);
      report.expired++;
    }
    for (const doc of await this.reservations.stalePending(stale, this.batch)) {
      await this.service.settle(doc._id);
      report.settled++;
    }
    for (const doc of await this.reservations.staleReserving(stale, this.batch)) {
      await this.service.complete(doc);
      report.resumed++;
    }
    report.orphans = await this.orphanHolds(stale);
    if (report.expired + report.settled + report.resumed + report.orphans > 0)
      this.logger.info({ ...report }, 'sweep');
    return report;
  }

  private async orphanHolds(before: Date): Promise<number> {
    let returned = 0;
    for (const doc of await this.stock.withExpiredHolds(before, this.batch)) {
      const holds = doc.reservations.filter((h) => h.expires_at < before);
      // First pass: which orders are still live.
      const orders = new Map(
        (await this.reservations.findMany(holds.map((h) => h.order_id))).map((o) => [o._id, o]),
      );
      // Second pass: everything else goes back (or is completed as a sale).
      for (const hold of holds) {
        const order = orders.get(hold.order_id);
        const line = { product_id: doc.product_id, qty: hold.qty };
        const owner = ownerOfHold(order);
        switch (owner) {
          case 'live':
            break;
          case 'selling':
            if (await this.stock.commitHold(doc.zone, line, hold.order_id)) returned++;
            break;
          case 'stray':
          case 'closed':
          case 'unknown':
            if (
              await this.stock.releaseHold(
                doc.zone,
                line,
                hold.order_id,
                order ? undoKindOf(order.status) : 'release',
                settledAsOf(order),
              )
            ) {
              returned++;
              if (owner === 'stray')
                this.logger.warn(
                  { order_id: hold.order_id, product_id: doc.product_id, zone: doc.zone },
                  'stray hold of a sold order returned',
                );
            }
            break;
          default:
            assertUnreachable(owner);
        }
      }
    }
    return returned;
  }
}
