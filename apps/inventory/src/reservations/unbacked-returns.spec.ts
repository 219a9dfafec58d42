import { Registry } from 'prom-client';
import type { ReservationDoc } from './reservation';
import type { StockReturnView } from './returns';
import { ReturnOrdersPort, ReturnStockPort, StockReturns } from './stock-returns';
import { UnbackedReturns } from './unbacked-returns';

const ORDER = '66f1c0ffee00000000000042';
const P = '5eed00000000000000000001';

/** A returned order of 3 units whose stock document holds only `committed` sold units (an operator may fix it). */
function world(committed: number) {
  const doc = { committed, available: 0, fence: 0, marks: new Set<string>() };
  const recorded = new Set<string>();
  const order = (): ReservationDoc =>
    ({
      _id: ORDER,
      zone: 'MSK',
      lines: [{ product_id: P, qty: 3 }],
      returned_lines: [...recorded],
    }) as unknown as ReservationDoc;
  const stock: ReturnStockPort = {
    returnView: async (): Promise<StockReturnView> => ({
      fence: doc.fence,
      marked: doc.marks.has(ORDER),
      committed: doc.committed,
    }),
    returnCommitted: async (_zone, line, orderId, fence) => {
      if (doc.fence !== fence || doc.committed < line.qty || doc.marks.has(orderId)) return false;
      doc.committed -= line.qty;
      doc.available += line.qty;
      doc.fence++;
      doc.marks.add(orderId);
      return true;
    },
    dropReturnMark: async (_zone, _p, orderId) => void doc.marks.delete(orderId),
  };
  const orders: ReturnOrdersPort = {
    get: async () => order(),
    recordReturnedLine: async (_id, productId) => void recorded.add(productId),
  };
  return { doc, stock, orders, order };
}

describe('unbacked returns: logged once, counted, a gauge while open (ADR 0040)', () => {
  it('every sweep retries the line, but it is logged and counted once; fixed by the operator, it leaves the gauge', async () => {
    const w = world(1);
    const errors: unknown[] = [];
    const infos: unknown[] = [];
    const logger = { error: (o: unknown) => void errors.push(o), info: (o: unknown) => void infos.push(o) };
    const registry = new Registry();
    const tracker = UnbackedReturns.withRegistry(logger, registry);
    const returns = new StockReturns(w.orders, w.stock, logger, tracker);
    for (let sweep = 0; sweep < 5; sweep++) expect(await returns.applyAll(w.order())).toBe(false);
    expect(errors).toEqual([
      expect.objectContaining({ order_id: ORDER, product_id: P, zone: 'MSK', qty: 3, committed: 1 }),
    ]);
    const text = await registry.metrics();
    expect(text).toMatch(/^inventory_unbacked_returns_found_total 1$/m);
    expect(text).toMatch(/^inventory_unbacked_returns 1$/m);
    // the operator corrects the document (a stock-take found the units): the next sweep returns them
    w.doc.committed = 3;
    expect(await returns.applyAll(w.order())).toBe(true);
    expect(await registry.metrics()).toMatch(/^inventory_unbacked_returns 0$/m);
    expect(infos).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect(w.doc.available).toBe(3);
  });
});
