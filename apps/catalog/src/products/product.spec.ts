import { applyChange, Product, toSnapshot } from './product';

const t0 = new Date('2026-01-01T00:00:00Z');
const t1 = new Date('2026-01-02T00:00:00Z');
const base: Product = {
  id: '65f000000000000000000001',
  name: 'Pixel 9',
  category_id: 'c3',
  ancestors: ['c1', 'c2', 'c3'],
  price: 7999000,
  currency: 'RUB',
  attributes: { color: 'black' },
  version: 3,
  created_at: t0,
  updated_at: t0,
};

describe('product changes', () => {
  it('a price-only change is ProductPriceChanged and bumps the version', () => {
    const r = applyChange(base, { price: 6999000 }, t1);
    expect(r.event).toBe('ProductPriceChanged');
    expect(r.next).toMatchObject({ price: 6999000, version: 4, updated_at: t1 });
  });

  it('a category move is ProductCategoryChanged even if the price changes too', () => {
    const r = applyChange(base, { price: 1, category: { id: 'c9', ancestors: ['c1', 'c9'] } }, t1);
    expect(r.event).toBe('ProductCategoryChanged');
    expect(r.next.ancestors).toEqual(['c1', 'c9']);
  });

  it('a changed ancestry of the same category is also a category change (the tree moved)', () => {
    expect(applyChange(base, { category: { id: 'c3', ancestors: ['c7', 'c3'] } }, t1).event).toBe(
      'ProductCategoryChanged',
    );
  });

  it('name, attributes or pricing changes are ProductUpdated; pricing gets its savings computed', () => {
    expect(applyChange(base, { name: 'Pixel 9 Pro' }, t1).event).toBe('ProductUpdated');
    expect(applyChange(base, { attributes: { color: 'white' } }, t1).event).toBe('ProductUpdated');
    const r = applyChange(base, { price: 5999000, pricing: { list: 7999000, retail: 5999000 } }, t1);
    expect(r.event).toBe('ProductUpdated');
    expect(r.next.pricing).toEqual({ list: 7999000, retail: 5999000, pct_savings: 25 });
  });

  it('a change that changes nothing writes nothing (idempotent PATCH)', () => {
    const r = applyChange(base, { price: base.price, attributes: { color: 'black' }, name: base.name }, t1);
    expect(r.event).toBeNull();
    expect(r.next).toBe(base);
  });

  it('snapshots carry ISO dates and the version', () => {
    expect(toSnapshot(base)).toMatchObject({
      product_id: base.id,
      version: 3,
      created_at: '2026-01-01T00:00:00.000Z',
    });
  });
});
