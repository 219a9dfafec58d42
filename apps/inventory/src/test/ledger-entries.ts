import type { Db } from 'mongodb';
import type { LedgerEntry } from '../ledger/ledger';
import { LEDGER } from '../ledger/ledger.repository';
import type { StockDoc } from '../stock/stock';
import { STOCK } from '../stock/stock.repository';

/**
 * The ledger entries of `orderIds` where they are now (ADR 0040): copied to the ledger collection, and still
 * pending in their stock documents' `_ledger` for the stock pass to copy. An entry the pass has copied but not
 * yet pulled is in both.
 */
export async function ledgerEntriesOf(db: Db, orderIds: readonly string[]): Promise<{ ledger: LedgerEntry[]; pending: LedgerEntry[] }> {
  const ids = [...orderIds];
  const ledger = await db.collection<LedgerEntry>(LEDGER).find({ order_id: { $in: ids } }).toArray();
  const docs = await db.collection<StockDoc>(STOCK).find({ '_ledger.order_id': { $in: ids } }, { projection: { _ledger: 1 } }).toArray();
  const pending = docs.flatMap((d) => d._ledger ?? []).filter((e) => e.order_id !== undefined && orderIds.includes(e.order_id));
  return { ledger, pending };
}

/** Entries counted by kind: `{ reserve: 3, commit: 3 }`. */
export function countByKind(entries: readonly LedgerEntry[]): Record<string, number> {
  const kinds: Record<string, number> = {};
  for (const e of entries) kinds[e.kind] = (kinds[e.kind] ?? 0) + 1;
  return kinds;
}
