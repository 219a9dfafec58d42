import { diffPeriods, diffProduct, diffRows, expectedRows, SourceProduct } from './anti-entropy';
import { ListingRow, periodOf, productRow } from './read-model';

const src: SourceProduct = {
  product_id: '65f0000000000000000000a1',
  version: 3,
  name: 'TV',
  category_id: 'oled',
  ancestors: ['tv', 'oled'],
  price: 100,
  currency: 'RUB',
  attributes: {},
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  deleted: false,
};
const row = (category_id: string, version = 3): ListingRow => ({
  category_id,
  bucket: periodOf(new Date(src.created_at), 8),
  created_at: new Date(src.created_at),
  product_id: src.product_id,
  name: 'TV',
  price: 100,
  attributes: {},
  pct_savings: null,
  product_category_id: 'oled',
  version,
});

describe('anti-entropy diff', () => {
  it('an in-sync product has no mismatches', () => {
    expect(diffProduct(src, productRow(src), src.product_id)).toEqual([]);
    expect(diffRows(new Map([[src.product_id, src]]), [row('tv'), row('oled')], 8)).toEqual([]);
  });

  it('finds missing, stale and extra rows', () => {
    const kinds = diffRows(new Map([[src.product_id, src]]), [row('tv', 2), row('lcd')], 8)
      .map((m) => m.kind)
      .sort();
    expect(kinds).toEqual(['extra-row', 'missing-row', 'stale-row']);
    expect(diffProduct(src, { ...productRow(src), version: 2 }, src.product_id)[0]?.kind).toBe(
      'stale-product',
    );
    expect(diffProduct(src, undefined, src.product_id)[0]?.kind).toBe('missing-product');
  });

  it('a deleted product must have no rows at all', () => {
    const gone = { ...src, deleted: true };
    expect(expectedRows(gone, 8)).toEqual([]);
    expect(diffProduct(gone, productRow(src), src.product_id)[0]?.kind).toBe('extra-product');
  });

  it('reports a period the live products are listed in that the period index lacks, once', () => {
    const period = periodOf(new Date(src.created_at), 8);
    const sources = new Map([[src.product_id, src]]);
    expect(
      diffPeriods(
        sources,
        [
          { category_id: 'tv', period },
          { category_id: 'oled', period },
        ],
        8,
      ),
    ).toEqual([]);
    expect(diffPeriods(sources, [{ category_id: 'tv', period }], 8)).toEqual([
      { kind: 'missing-period', product_id: src.product_id, category_id: 'oled', period },
    ]);
    expect(diffPeriods(new Map([[src.product_id, { ...src, deleted: true }]]), [], 8)).toEqual([]);
  });
});
