import type { OutgoingMessage } from '@mw/contracts';
import type { LedgerEntry } from '../ledger/ledger';
import { InventoryEvents } from '../outbox/inventory-events';
import { StockRepository } from './stock.repository';

/** Where the pass sends its events: the service's idempotent producer (acks=all). */
export interface LevelPublisher {
  publishAll(messages: readonly OutgoingMessage[]): Promise<void>;
}

/** Where the pass copies ledger entries: the ledger collection, keyed by entry id (a repeated copy is a no-op). */
export interface LedgerCopier {
  copy(entries: readonly LedgerEntry[]): Promise<void>;
}

/** What one pass did: documents it found with a level to publish, and ledger entries it moved. */
export interface StockPassOutcome {
  readonly dirty: number;
  readonly copied: number;
}

/**
 * The one background pass over stock documents: it publishes StockLevelChanged for documents whose
 * `available` moved and moves their pending `_ledger` entries to the ledger collection, and then
 * settles both with one write per document (ADR 0040, "One pass over stock documents").
 *
 * Levels go straight to Kafka, not through the outbox (ADR 0040 "Level notifications"): the change
 * is already durable in the document (`level_dirty`), so the flag is the outbox, and bursts coalesce
 * (a hot product under load yields one event per pass, not one per reservation). Each event carries
 * the level and version read from the document; read models keep the newest version (carts writes
 * it `USING TIMESTAMP` version), so an event older than one they have, or repeated, changes nothing.
 *
 * A pass: one majority read of the documents with work; the levels published (acks=all); the
 * entries copied (majority; a copy repeated after a crash is a duplicate-key no-op); then one
 * unordered bulkWrite in which each document is written once — the entries it had pulled, and the
 * flag cleared if it is still at the version read. A crash anywhere before the bulkWrite repeats the
 * pass (a level published twice, entries copied twice: both harmless); a document that moved
 * meanwhile keeps its flag and the next pass publishes its newer level. A failed publish does not
 * hold the ledger back: the entries are still moved, the flags stay, and the error is raised after.
 * It runs as a `stockPump`: an idle period costs a backed-off read and no write.
 */
export class StockPass {
  constructor(
    private readonly stock: StockRepository,
    private readonly ledger: LedgerCopier,
    private readonly events: InventoryEvents,
    private readonly publisher: LevelPublisher,
  ) {}

  async runOnce(limit = 200): Promise<StockPassOutcome> {
    const docs = await this.stock.pendingWork(limit);
    if (docs.length === 0) return { dirty: 0, copied: 0 };
    const dirty = docs.filter((doc) => doc.level_dirty === true);
    let publishFailed: { error: unknown } | undefined;
    if (dirty.length > 0)
      await this.publisher
        .publishAll(
          dirty.map((doc) =>
            this.events.build('StockLevelChanged', {
              product_id: doc.product_id,
              zone: doc.zone,
              available: Math.max(0, doc.available),
              version: doc.version,
            }),
          ),
        )
        .catch((error: unknown) => {
          publishFailed = { error };
        });
    const entries = docs.flatMap((doc) => doc._ledger ?? []);
    // never pull entries whose copy a majority has not acknowledged: a failed copy ends the pass here
    if (entries.length > 0) await this.ledger.copy(entries);
    await this.stock.settle(docs, { clearLevels: publishFailed === undefined });
    if (publishFailed) throw publishFailed.error;
    return { dirty: dirty.length, copied: entries.length };
  }
}
