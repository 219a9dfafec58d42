import type { Logger } from 'pino';
import { AppError, assertUnreachable } from '@mw/platform';
import type { StockRepository } from '../stock/stock.repository';
import type { Line, ReservationDoc } from './reservation';
import type { ReservationsRepository } from './reservations.repository';
import { nextReturnStep } from './returns';
import { UnbackedReturns } from './unbacked-returns';

/** What the return needs of the stock documents and of the orders (the repositories, or a model in tests). */
export type ReturnStockPort = Pick<StockRepository, 'returnView' | 'returnCommitted' | 'dropReturnMark'>;
export type ReturnOrdersPort = Pick<ReservationsRepository, 'get' | 'recordReturnedLine'>;

/** Reads and retries of one line before the command is retried with backoff (the fence kept moving). */
const ATTEMPTS_PER_LINE = 8;

/**
 * Applies the pending return of a `returned` order to its stock documents, each line exactly once
 * whatever crashed, repeated or ran in parallel before (the guard is explained on `nextReturnStep`):
 * per line, read the stock document, then the order; apply (fenced), record on the order, drop the mark.
 */
export class StockReturns {
  constructor(
    private readonly reservations: ReturnOrdersPort,
    private readonly stock: ReturnStockPort,
    logger: Pick<Logger, 'error' | 'info'>,
    private readonly unbackedReturns: UnbackedReturns = new UnbackedReturns(logger),
  ) {}

  /** True when every line is back on sale; false when a line is unbacked (the order stays pending). */
  async applyAll(doc: ReservationDoc): Promise<boolean> {
    let complete = true;
    for (const line of doc.lines) if (!(await this.applyLine(doc, line))) complete = false;
    return complete;
  }

  private async applyLine(doc: ReservationDoc, line: Line): Promise<boolean> {
    for (let attempt = 0; attempt < ATTEMPTS_PER_LINE; attempt++) {
      // The stock document first, the order second: the order of the reads is the guard.
      const stock = await this.stock.returnView(doc.zone, line.product_id, doc._id);
      const order = await this.reservations.get(doc._id);
      const next = nextReturnStep(line, stock, (order?.returned_lines ?? []).includes(line.product_id));
      switch (next.step) {
        case 'done':
          if (next.dropMark) await this.stock.dropReturnMark(doc.zone, line.product_id, doc._id);
          this.unbackedReturns.settled(doc._id, line.product_id);
          return true;
        case 'record':
          await this.record(doc, line);
          return true;
        case 'apply':
          if (await this.stock.returnCommitted(doc.zone, line, doc._id, next.fence)) {
            await this.record(doc, line);
            return true;
          }
          break; // the fence moved (a return on this document, perhaps this one by another processor): read again
        case 'unbacked':
          // left pending and retried by every sweep; logged and counted once per line (ADR 0040: operator action)
          this.unbackedReturns.unbacked({
            order_id: doc._id,
            product_id: line.product_id,
            zone: doc.zone,
            qty: line.qty,
            committed: stock?.committed ?? null,
          });
          return false;
        default:
          assertUnreachable(next);
      }
    }
    throw new AppError(
      'INVENTORY.RETURN_CONTENDED',
      'unavailable',
      `return of order ${doc._id} on ${line.product_id}:${doc.zone} kept racing; retrying`,
    );
  }

  /** The order records the line first; only then may the stock document forget the return. */
  private async record(doc: ReservationDoc, line: Line): Promise<void> {
    await this.reservations.recordReturnedLine(doc._id, line.product_id);
    await this.stock.dropReturnMark(doc.zone, line.product_id, doc._id);
    this.unbackedReturns.settled(doc._id, line.product_id);
  }
}
