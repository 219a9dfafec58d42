import { DEMO_TREE, demoProducts, FAMILIES, leavesOf } from './demo-data';

describe('demo data', () => {
  const products = demoProducts(2400);

  it('is deterministic with unique ids', () => {
    expect(demoProducts(5)).toEqual(demoProducts(5));
    expect(new Set(products.map((p) => p.id)).size).toBe(2400);
    expect(products.every((p) => /^[0-9a-f]{24}$/.test(p.id))).toBe(true);
  });

  it('makes Электроника the hot category and keeps prices whole kopecks', () => {
    const hot = new Set(leavesOf(DEMO_TREE, 'elektronika'));
    const share = products.filter((p) => hot.has(p.leaf)).length / products.length;
    expect(share).toBeGreaterThan(0.5);
    expect(products.every((p) => Number.isSafeInteger(p.price) && p.price > 0)).toBe(true);
    expect(products.every((p) => !p.pricing || p.pricing.list >= p.pricing.retail)).toBe(true);
  });

  it('the tree is three levels deep', () => {
    const depth = (c: (typeof DEMO_TREE)[number]): number =>
      1 + Math.max(0, ...(c.children ?? []).map(depth));
    expect(Math.max(...DEMO_TREE.map(depth))).toBe(3);
  });

  it('gives every brand its own models: a name is its brand and one of that brand’s models', () => {
    expect(leavesOf(DEMO_TREE).filter((leaf) => !FAMILIES[leaf])).toEqual([]);
    for (const p of products) {
      const brand = p.attributes['brand'] ?? '';
      const models = FAMILIES[p.leaf]?.lines[brand] ?? [];
      expect(models.some((m) => p.name.startsWith(`${brand} ${m}`))).toBe(true);
    }
  });

  it('a brand search finds that brand only, as a shopper expects', () => {
    const apple = products.filter((p) => p.attributes['brand'] === 'Apple');
    expect(apple.length).toBeGreaterThan(50);
    expect(apple.every((p) => p.name.startsWith('Apple '))).toBe(true);
    expect(
      products.filter((p) => p.name.includes('Pixel')).every((p) => p.attributes['brand'] === 'Google'),
    ).toBe(true);
  });
});
