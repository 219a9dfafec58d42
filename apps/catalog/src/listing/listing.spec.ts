import { decodeListingCursor, encodeListingCursor, mergeNewest } from './listing';

const row = (t: number, id: string) => ({ created_at: new Date(t), product_id: id.padStart(24, '0') });

describe('bucketed listing merge', () => {
  it('merges bucket pages newest first, ties by product id, and cuts at the limit', () => {
    const pages = [[row(5, 'a'), row(1, 'b')], [row(4, 'c'), row(4, 'd')], []];
    const { items, more } = mergeNewest(pages, 3);
    expect(items.map((r) => r.product_id.slice(-1))).toEqual(['a', 'd', 'c']);
    expect(more).toBe(true);
    expect(mergeNewest(pages, 10).more).toBe(false);
  });

  it('cursors round-trip and garbage is rejected', () => {
    const p = row(1767225600000, 'abc');
    expect(decodeListingCursor(encodeListingCursor(p))).toEqual(p);
    expect(decodeListingCursor('xyz')).toBeNull();
    expect(decodeListingCursor(Buffer.from('[1,"$where"]').toString('base64url'))).toBeNull();
  });
});
