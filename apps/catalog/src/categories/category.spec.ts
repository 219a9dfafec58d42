import {
  ancestorsUnder,
  buildTree,
  Category,
  checkMove,
  productAncestry,
  rebaseAncestors,
  refOf,
  subtreeHeight,
} from './category';

const cat = (id: string, name: string, parent: Category | null): Category => ({
  id,
  slug: name.toLowerCase(),
  name,
  parent_id: parent?.id ?? null,
  ancestors: ancestorsUnder(parent),
  version: 1,
});

// Электроника › Телефоны › Смартфоны › Android ; Электроника › Ноутбуки
const electronics = cat('e', 'Electronics', null);
const phones = cat('p', 'Phones', electronics);
const smartphones = cat('s', 'Smartphones', phones);
const android = cat('a', 'Android', smartphones);
const laptops = cat('l', 'Laptops', electronics);

describe('category tree rules', () => {
  it('a child inherits its parent ancestry, root first', () => {
    expect(android.ancestors.map((a) => a.id)).toEqual(['e', 'p', 's']);
    expect(productAncestry(android)).toEqual(['e', 'p', 's', 'a']);
    expect(ancestorsUnder(null)).toEqual([]);
  });

  it('refuses to move a category under itself or its own descendant', () => {
    expect(checkMove(phones, phones, 3)).toEqual({ ok: false, reason: 'own-subtree' });
    expect(checkMove(phones, android, 3)).toEqual({ ok: false, reason: 'own-subtree' });
    expect(checkMove(phones, laptops, 3)).toEqual({ ok: true });
    expect(checkMove(phones, null, 3)).toEqual({ ok: true });
  });

  it('refuses a move that makes the tree deeper than the limit', () => {
    expect(checkMove(phones, android, 1).ok).toBe(false);
    const deep = [electronics, phones, smartphones, android].reduce<Category>(
      (p, _c, i) => cat(`d${i}`, `D${i}`, p),
      laptops,
    );
    expect(checkMove(phones, deep, 3)).toEqual({ ok: false, reason: 'too-deep', depth: 9 });
  });

  it('moving Phones under Laptops rebuilds every descendant ancestry below the new parent', () => {
    const movedAncestors = ancestorsUnder(laptops);
    expect(rebaseAncestors(smartphones, phones, movedAncestors).map((a) => a.id)).toEqual(['e', 'l', 'p']);
    expect(rebaseAncestors(android, phones, movedAncestors).map((a) => a.id)).toEqual(['e', 'l', 'p', 's']);
    expect(() => rebaseAncestors(laptops, phones, movedAncestors)).toThrow(/not below/);
  });

  it('moving a subtree to the root keeps only the part from the moved node down', () => {
    expect(rebaseAncestors(android, smartphones, []).map((a) => a.id)).toEqual(['s']);
  });

  it('measures subtree height from the descendants list', () => {
    expect(subtreeHeight(phones, [smartphones, android])).toBe(3);
    expect(subtreeHeight(android, [])).toBe(1);
  });

  it('builds the nested tree with children sorted by name', () => {
    const tree = buildTree([android, laptops, smartphones, electronics, phones]);
    expect(tree).toHaveLength(1);
    expect(tree[0]!.children.map((c) => c.name)).toEqual(['Laptops', 'Phones']);
    expect(tree[0]!.children[1]!.children[0]!.children[0]).toEqual({ ...refOf(android), children: [] });
  });
});
