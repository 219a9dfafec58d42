import {
  ancestorsUnder,
  buildTree,
  Category,
  checkMove,
  moveBackoffMs,
  productAncestry,
  rebaseAncestors,
  refOf,
  sameAncestors,
  subtreeHeight,
  treeInconsistencies,
  walkUp,
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

  describe('the tree invariant a move keeps', () => {
    it('walks up the parents, root first; a cycle or a missing parent is reported', () => {
      const byId = new Map([electronics, phones, smartphones, android].map((c) => [c.id, c]));
      expect(walkUp(byId, 'a')).toEqual(['e', 'p', 's']);
      expect(
        walkUp(
          new Map([
            ['x', { id: 'x', parent_id: 'y' }],
            ['y', { id: 'y', parent_id: 'x' }],
          ]),
          'x',
        ),
      ).toBe('cycle');
      expect(walkUp(new Map([['x', { id: 'x', parent_id: 'gone' }]]), 'x')).toBe('broken');
    });

    it('finds categories whose stored ancestors disagree with their parent chain', () => {
      expect(treeInconsistencies([electronics, phones, smartphones, android, laptops])).toEqual([]);
      // Phones moved under Laptops, Smartphones not rebased yet.
      const movedPhones = { ...phones, parent_id: 'l', ancestors: ancestorsUnder(laptops) };
      const problems = treeInconsistencies([electronics, movedPhones, smartphones, android, laptops]);
      expect(problems.map((p) => p.id)).toEqual(['s', 'a']);
    });

    it('compares ancestries by id, slug and name', () => {
      expect(sameAncestors(android.ancestors, [...android.ancestors])).toBe(true);
      expect(sameAncestors(android.ancestors, [refOf(electronics), refOf(laptops), refOf(smartphones)])).toBe(
        false,
      );
      expect(
        sameAncestors(android.ancestors, [
          refOf(electronics),
          { ...refOf(phones), name: 'x' },
          refOf(smartphones),
        ]),
      ).toBe(false);
    });

    it('backs off 50 → 800 ms between attempts to take the move slot', () => {
      expect(moveBackoffMs(0, 0.5)).toBe(50);
      expect(moveBackoffMs(3, 0.5)).toBe(400);
      expect(moveBackoffMs(10, 0.5)).toBe(800);
    });
  });
});
