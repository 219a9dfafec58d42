import { ClientSession, Db } from 'mongodb';
import { ReservationsRepository } from '../reservations/reservations.repository';
import { unappliedReturns } from '../reservations/returns';
import { StockDoc, heldQty, holdOf } from '../stock/stock';
import { STOCK } from '../stock/stock.repository';
import {
  InvariantReport,
  LedgerKind,
  checkInvariant,
  effectOf,
  addCounters,
  zeroCounters,
  StockCounters,
} from './ledger';
import { LedgerRepository } from './ledger.repository';

/**
 * The invariant check: every (product, zone) document against the replay of its ledger, and its
 * `committed` counter against the units of committed reservations, corrected for returns still
 * being applied (the ledger alone agrees with a double sale or a double return: both the counter
 * and the ledger record it).
 */
export class LedgerService {
  constructor(
    private readonly db: Db,
    private readonly ledger: LedgerRepository,
    private readonly reservations: ReservationsRepository,
  ) {}

  async check(
    filter: { product_id?: string; zone?: string },
    limit = 1000,
  ): Promise<{ ok: boolean; checked: number; failures: InvariantReport[] }> {
    const query = {
      ...(filter.product_id ? { product_id: filter.product_id.toLowerCase() } : {}),
      ...(filter.zone ? { zone: filter.zone } : {}),
    };
    // One snapshot for every read: the flusher moves entries from the documents to the ledger while
    // we read, and reads at different moments would count an entry twice or not at all.
    const session = this.db.client.startSession({ snapshot: true });
    try {
      const docs = await this.db.collection<StockDoc>(STOCK).find(query, { session }).limit(limit).toArray();
      const failures: InvariantReport[] = [];
      for (const doc of docs) {
        const report = await this.checkOne(doc, session);
        if (!report.ok) failures.push(report);
      }
      return { ok: failures.length === 0, checked: docs.length, failures };
    } finally {
      await session.endSession();
    }
  }

  /** `session`: a snapshot session the document was read in (see check()). */
  async checkOne(doc: StockDoc, session?: ClientSession): Promise<InvariantReport> {
    const sums = await this.ledger.sums(doc.product_id, doc.zone, session);
    // Entries still pending in the document count too, unless the flusher already copied them.
    const pending = doc._ledger ?? [];
    const copied = await this.ledger.existing(
      pending.map((e) => e._id),
      session,
    );
    for (const e of pending) if (!copied.has(e._id)) sums.set(e.kind, (sums.get(e.kind) ?? 0) + e.qty);
    const fromLedger = [...sums].reduce<StockCounters>(
      (acc, [kind, qty]: [LedgerKind, number]) => addCounters(acc, effectOf(kind, qty)),
      zeroCounters,
    );
    const counters: StockCounters = {
      available: doc.available,
      reserved: doc.reserved,
      committed: doc.committed,
      received: doc.received,
      adjusted: doc.adjusted,
    };
    const sales = await this.reservations.sales(doc.product_id, doc.zone, session);
    // A sale whose commit is not yet applied here is still a hold on the document, not yet `committed`.
    const applying = sales.applying.filter((s) => holdOf(doc, s.order_id)).reduce((n, s) => n + s.qty, 0);
    // A returned order no longer counts as a sale, but its units stay `committed` here until its return is applied.
    const marked = new Set((doc.return_marks ?? []).map((m) => m.order_id));
    const returning = unappliedReturns(
      await this.reservations.returning(doc.product_id, doc.zone, session),
      marked,
    );
    return checkInvariant(
      { product_id: doc.product_id, zone: doc.zone },
      counters,
      heldQty(doc),
      fromLedger,
      { sold: sales.units, applying, returning },
    );
  }
}
