import { buildSearch, decodeCursor, encodeCursor, SearchParams } from './search-query';

const cat = '65f0000000000000000000c1';
const id = '65f0000000000000000000a1';
const base: SearchParams = { include_subcategories: false, attributes: {}, sort: 'price_asc', limit: 20 };

describe('search query building', () => {
  it('without filters it walks the sort index, live documents only', () => {
    expect(buildSearch(base)).toEqual({
      filter: { deleted_at: null },
      sort: { price: 1, _id: 1 },
      limit: 20,
      index: 'price',
    });
  });

  it('a category alone uses category_id; with sub-categories the multikey ancestors field', () => {
    expect(buildSearch({ ...base, category_id: cat }).filter).toEqual({
      $and: [{ category_id: { $oid: cat } }, { deleted_at: null }],
    });
    const sub = buildSearch({ ...base, category_id: cat, include_subcategories: true, sort: 'newest' });
    expect(sub.filter).toEqual({ $and: [{ ancestors: { $oid: cat } }, { deleted_at: null }] });
    expect(sub.sort).toEqual({ created_at: -1, _id: -1 });
    expect(sub.index).toBe('ancestors_newest');
  });

  it('price range and attribute filters are conjunctions on fixed field names', () => {
    const q = buildSearch({
      ...base,
      category_id: cat,
      min_price: 100,
      max_price: 500,
      attributes: { color: 'red', ram_gb: '8' },
    });
    expect(q.filter).toEqual({
      $and: [
        { category_id: { $oid: cat } },
        { deleted_at: null },
        { price: { $gte: 100, $lte: 500 } },
        { 'attributes.color': 'red' },
        { 'attributes.ram_gb': '8' },
      ],
    });
    expect(q.index).toBe('category_price');
    expect(buildSearch({ ...base, max_price: 5 }).filter).toEqual({
      $and: [{ deleted_at: null }, { price: { $lte: 5 } }],
    });
  });

  it('a cursor resumes strictly after the last item, ties broken by _id in the sort direction', () => {
    const asc = buildSearch({ ...base, cursor: { sort: 'price_asc', key: 1000, id } });
    expect(asc.filter).toEqual({
      $and: [
        { deleted_at: null },
        { $or: [{ price: { $gt: 1000 } }, { price: 1000, _id: { $gt: { $oid: id } } }] },
      ],
    });
    const newest = buildSearch({ ...base, sort: 'newest', cursor: { sort: 'newest', key: 5, id } });
    expect(newest.filter).toEqual({
      $and: [
        { deleted_at: null },
        {
          $or: [
            { created_at: { $lt: { $date: 5 } } },
            { created_at: { $date: 5 }, _id: { $lt: { $oid: id } } },
          ],
        },
      ],
    });
    expect(buildSearch({ ...base, sort: 'discount' }).sort).toEqual({ discount_pct: -1, _id: -1 });
  });

  it('cursors round-trip and foreign or tampered cursors are rejected', () => {
    const c = { sort: 'price_desc' as const, key: 42, id };
    expect(decodeCursor(encodeCursor(c), 'price_desc')).toEqual(c);
    expect(decodeCursor(encodeCursor(c), 'price_asc')).toBeNull();
    expect(decodeCursor('not-base64-json', 'price_asc')).toBeNull();
    expect(
      decodeCursor(
        Buffer.from(JSON.stringify(['price_asc', { $gt: 1 }, id])).toString('base64url'),
        'price_asc',
      ),
    ).toBeNull();
    expect(
      decodeCursor(
        Buffer.from(JSON.stringify(['price_asc', 1, '$where'])).toString('base64url'),
        'price_asc',
      ),
    ).toBeNull();
  });
});
