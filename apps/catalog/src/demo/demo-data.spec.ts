import { DEMO_TREE, demoProducts, leavesOf } from './demo-data';

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
});
