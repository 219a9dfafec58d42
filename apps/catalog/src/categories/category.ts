/**
 * The category tree (seed 004 "ancestors" pattern): each category stores its parent and the
 * ordered list of its ancestors (root first), so breadcrumbs and "everything under X" are one
 * read. Plain rules here; I/O lives in the repository.
 */
export const MAX_DEPTH = 8;

export interface AncestorRef {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
}

export interface Category {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly parent_id: string | null;
  /** Root first, parent last. */
  readonly ancestors: readonly AncestorRef[];
  readonly version: number;
}

export interface CategoryTreeNode {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly children: CategoryTreeNode[];
}

export const refOf = (c: Pick<Category, 'id' | 'slug' | 'name'>): AncestorRef => ({
  id: c.id,
  slug: c.slug,
  name: c.name,
});

/** Ancestors of a new child of `parent` (null: a root). */
export function ancestorsUnder(parent: Category | null): AncestorRef[] {
  return parent ? [...parent.ancestors, refOf(parent)] : [];
}

/** Ancestor ids of a product in `category`, root first, the category itself last. */
export function productAncestry(category: Pick<Category, 'id' | 'ancestors'>): string[] {
  return [...category.ancestors.map((a) => a.id), category.id];
}

export function breadcrumbs(category: Category): AncestorRef[] {
  return [...category.ancestors, refOf(category)];
}

export function isInSubtreeOf(
  candidate: Pick<Category, 'id' | 'ancestors'>,
  root: Pick<Category, 'id'>,
): boolean {
  return candidate.id === root.id || candidate.ancestors.some((a) => a.id === root.id);
}

export type MoveCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'own-subtree' | 'too-deep'; readonly depth?: number };

/**
 * A subtree may move under any parent outside itself, as long as the deepest descendant stays
 * within MAX_DEPTH levels. `subtreeHeight` is 1 for a leaf.
 */
export function checkMove(moved: Category, newParent: Category | null, subtreeHeight: number): MoveCheck {
  if (newParent && isInSubtreeOf(newParent, moved)) return { ok: false, reason: 'own-subtree' };
  const depth = (newParent ? newParent.ancestors.length + 1 : 0) + subtreeHeight;
  if (depth > MAX_DEPTH) return { ok: false, reason: 'too-deep', depth };
  return { ok: true };
}

/**
 * A descendant's ancestors after `moved` got `movedAncestors`: the part above the moved
 * category is replaced, the part below it (moved itself and what follows) is kept.
 */
export function rebaseAncestors(
  descendant: Category,
  moved: Category,
  movedAncestors: readonly AncestorRef[],
): AncestorRef[] {
  const at = descendant.ancestors.findIndex((a) => a.id === moved.id);
  if (at < 0) throw new Error(`category ${descendant.id} is not below ${moved.id}`);
  return [...movedAncestors, ...descendant.ancestors.slice(at)];
}

/** Height of the subtree rooted at `root` (1 for a leaf) among its descendants. */
export function subtreeHeight(root: Category, descendants: readonly Category[]): number {
  const base = root.ancestors.length;
  return descendants.reduce((h, d) => Math.max(h, d.ancestors.length - base + 1), 1);
}

/** Nested tree from a flat list; children sorted by name (Russian collation). */
export function buildTree(categories: readonly Category[]): CategoryTreeNode[] {
  const nodes = new Map<string, CategoryTreeNode>(
    categories.map((c) => [c.id, { id: c.id, slug: c.slug, name: c.name, children: [] }]),
  );
  const roots: CategoryTreeNode[] = [];
  for (const c of categories) {
    const node = nodes.get(c.id);
    if (!node) continue;
    const parent = c.parent_id ? nodes.get(c.parent_id) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  const sort = (list: CategoryTreeNode[]): void => {
    list.sort((a, b) => a.name.localeCompare(b.name, 'ru'));
    list.forEach((n) => sort(n.children));
  };
  sort(roots);
  return roots;
}

/** Same ancestry: the same categories in the same order, with the same slugs and names. */
export function sameAncestors(a: readonly AncestorRef[], b: readonly AncestorRef[]): boolean {
  return (
    a.length === b.length &&
    a.every((x, i) => x.id === b[i]?.id && x.slug === b[i]?.slug && x.name === b[i]?.name)
  );
}

/**
 * The ancestor ids of `id` found by walking up the parent links (root first), or 'cycle' when
 * the walk comes back to a category it passed, or 'broken' when a parent is missing. The stored
 * `ancestors` of every category must equal this walk (the tree invariant a move must keep).
 */
export function walkUp(
  byId: ReadonlyMap<string, Pick<Category, 'id' | 'parent_id'>>,
  id: string,
): string[] | 'cycle' | 'broken' {
  const path: string[] = [];
  const seen = new Set([id]);
  let parent = byId.get(id)?.parent_id ?? null;
  while (parent !== null) {
    if (seen.has(parent)) return 'cycle';
    seen.add(parent);
    const p = byId.get(parent);
    if (!p) return 'broken';
    path.unshift(parent);
    parent = p.parent_id;
  }
  return path;
}

/** Categories whose stored ancestry disagrees with their parent chain (empty: the tree is consistent). */
export function treeInconsistencies(categories: readonly Category[]): { id: string; problem: string }[] {
  const byId = new Map(categories.map((c) => [c.id, c]));
  const out: { id: string; problem: string }[] = [];
  for (const c of categories) {
    const walk = walkUp(byId, c.id);
    if (walk === 'cycle' || walk === 'broken') out.push({ id: c.id, problem: walk });
    else if (walk.join('/') !== c.ancestors.map((a) => a.id).join('/'))
      out.push({
        id: c.id,
        problem: `ancestors ${c.ancestors.map((a) => a.id).join('/')} ≠ parents ${walk.join('/')}`,
      });
  }
  return out;
}

/** Attempts for a version-guarded change that keeps losing to concurrent writers before a 409. */
export const MAX_CONFLICT_ATTEMPTS = 5;

/** Backoff before the next attempt to take the move slot: 50, 100, 200, 400 ms (+ jitter). */
export function moveBackoffMs(attempt: number, jitter = Math.random()): number {
  return Math.round(Math.min(800, 50 * 2 ** attempt) * (0.75 + jitter / 2));
}
