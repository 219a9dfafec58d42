import { bucketOf, planFor, ProductEvent, SnapshotLike, writeTimestamp } from './read-model';

const snap: SnapshotLike = {
  product_id: '65f0000000000000000000a1',
  version: 2,
  name: 'Galaxy S24',
  category_id: 'android',
  ancestors: ['electronics', 'phones', 'android'],
  price: 8999000,
  currency: 'RUB',
  attributes: { color: 'black' },
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-02T00:00:00.000Z',
};

describe('read-model projection rules', () => {
  it('write timestamps grow with the version of one product', () => {
    const t = new Date('2026-01-01T00:00:00Z');
    expect(writeTimestamp(t, 2)).toBeGreaterThan(writeTimestamp(t, 1));
    expect(writeTimestamp(t, 1001)).toBeGreaterThan(writeTimestamp(t, 1000));
    expect(writeTimestamp(t, 1)).toBe(1767225600000001n);
  });

  it('buckets are stable and spread ids over all buckets', () => {
    expect(bucketOf(snap.product_id, 8)).toBe(bucketOf(snap.product_id, 8));
    const seen = new Set(
      Array.from({ length: 200 }, (_, i) => bucketOf(i.toString(16).padStart(24, '0'), 8)),
    );
    expect(seen.size).toBe(8);
    expect(bucketOf(snap.product_id, 1)).toBe(0);
  });

  it('a created product is written to products_by_id and fanned out to its category and every ancestor', () => {
    const plan = planFor({ type: 'ProductCreated', payload: snap }, 8);
    expect(plan.upsertProduct?.product_id).toBe(snap.product_id);
    expect(plan.upsertRows.map((r) => r.category_id)).toEqual(['electronics', 'phones', 'android']);
    expect(new Set(plan.upsertRows.map((r) => r.bucket)).size).toBe(1);
    expect(plan.deleteRows).toEqual([]);
    expect(plan.timestamp).toBe(writeTimestamp(new Date(snap.created_at), 2));
  });

  it('a category change deletes only the rows of categories the product left', () => {
    const e: ProductEvent = {
      type: 'ProductCategoryChanged',
      payload: {
        ...snap,
        version: 3,
        category_id: 'ios',
        ancestors: ['electronics', 'phones', 'ios'],
        previous_ancestors: snap.ancestors,
      },
    };
    const plan = planFor(e, 8);
    expect(plan.deleteRows.map((r) => r.category_id)).toEqual(['android']);
    expect(plan.upsertRows.map((r) => r.category_id)).toEqual(['electronics', 'phones', 'ios']);
  });

  it('a delete removes the product and every listing row', () => {
    const plan = planFor(
      {
        type: 'ProductDeleted',
        payload: {
          product_id: snap.product_id,
          version: 4,
          ancestors: snap.ancestors,
          created_at: snap.created_at,
        },
      },
      8,
    );
    expect(plan.deleteProduct).toBe(snap.product_id);
    expect(plan.deleteRows).toHaveLength(3);
    expect(plan.upsertRows).toEqual([]);
  });
});
