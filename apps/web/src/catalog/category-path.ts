import type { components } from '../api/generated/catalog';

export type TreeNode = components['schemas']['getCategoryTree_response_CategoryTreeNode'];

/** The path from a root of the tree to the category with this id (empty when it is not in the tree). */
export function pathTo(nodes: readonly TreeNode[], id: string): TreeNode[] {
  for (const n of nodes) {
    if (n.id === id) return [n];
    const below = pathTo(n.children, id);
    if (below.length > 0) return [n, ...below];
  }
  return [];
}

/** The slug of a product's root category: its first ancestor, else the top of its category's path. */
export function rootSlugOf(
  nodes: readonly TreeNode[],
  categoryId: string,
  ancestors: readonly string[],
): string | undefined {
  const top = ancestors[0];
  if (top) return nodes.find((n) => n.id === top)?.slug;
  return pathTo(nodes, categoryId)[0]?.slug;
}
