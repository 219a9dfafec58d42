import { rootSlugOf } from './category-traffic';

describe('rootSlugOf', () => {
  it('a category counts for the root of its tree; a root for itself', () => {
    const ref = (slug: string) => ({ id: slug, slug, name: slug });
    expect(
      rootSlugOf({ slug: 'android', ancestors: [ref('electronics'), ref('phones'), ref('smartphones')] }),
    ).toBe('electronics');
    expect(rootSlugOf({ slug: 'electronics', ancestors: [] })).toBe('electronics');
  });
});
