import { CatalogEvent, exceedsKnownStock, productWriteFor } from './product';

const created = '2026-11-21T10:00:00.000Z';
const snap = (version: number, price: number) => ({ product_id: 'p1', version, name: 'Смартфон', category_id: 'c1', price, created_at: created });

describe('product table rules', () => {
  it('a later version always writes with a bigger timestamp; a duplicate with the same one', () => {
    const v1 = productWriteFor({ type: 'ProductCreated', payload: snap(1, 378990) });
    const v2 = productWriteFor({ type: 'ProductPriceChanged', payload: snap(2, 1) });
    expect(v2.timestamp).toBeGreaterThan(v1.timestamp);
    expect(productWriteFor({ type: 'ProductCreated', payload: snap(1, 378990) }).timestamp).toBe(v1.timestamp);
    expect(v1).toMatchObject({ kind: 'upsert', product: { price: 378990, name: 'Смартфон', category_id: 'c1', version: 1 } });
  });

  it('a deletion is a tombstone newer than every version before it', () => {
    const del: CatalogEvent = { type: 'ProductDeleted', payload: { product_id: 'p1', version: 3, created_at: created } };
    const w = productWriteFor(del);
    expect(w).toMatchObject({ kind: 'delete', product_id: 'p1' });
    expect(w.timestamp).toBeGreaterThan(productWriteFor({ type: 'ProductUpdated', payload: snap(2, 5) }).timestamp);
  });

  it('refuses a quantity only above a known stock level', () => {
    expect(exceedsKnownStock(null, 99)).toBe(false);
    expect(exceedsKnownStock({ product_id: 'p', zone: 'MSK', available: 2, version: 1 }, 2)).toBe(false);
    expect(exceedsKnownStock({ product_id: 'p', zone: 'MSK', available: 2, version: 1 }, 3)).toBe(true);
  });
});
