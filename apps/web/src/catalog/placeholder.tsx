/**
 * A product's picture until the catalog has images: an SVG drawn here per root category (a phone, a
 * laptop, a TV, a gadget) in a colour of its own category — nothing downloaded at run time.
 */
import { useCategoryTree } from './use-category-tree';
import { rootSlugOf } from './category-path';

type Shape = 'phone' | 'laptop' | 'tv' | 'gadget';
const SHAPES: Readonly<Record<string, Shape>> = { telefony: 'phone', noutbuki: 'laptop', televizory: 'tv' };

/** A hue from the category id, so sibling categories look apart but each always looks the same. */
export function hueOf(id: string): number {
  let h = 0;
  for (const c of id) h = (h * 31 + c.charCodeAt(0)) % 360;
  return h;
}

function Outline({ shape }: { shape: Shape }) {
  switch (shape) {
    case 'phone':
      return (
        <>
          <rect x="38" y="14" width="44" height="82" rx="8" />
          <circle cx="60" cy="88" r="3" />
        </>
      );
    case 'laptop':
      return (
        <>
          <rect x="26" y="24" width="68" height="46" rx="4" />
          <path d="M16 78 h88 l-6 8 h-76 z" />
        </>
      );
    case 'tv':
      return (
        <>
          <rect x="18" y="20" width="84" height="54" rx="4" />
          <path d="M48 86 h24 M60 74 v12" />
        </>
      );
    case 'gadget':
      return (
        <>
          <rect x="40" y="30" width="40" height="48" rx="12" />
          <path d="M50 30 v-12 h20 v12 M50 78 v12 h20 v-12" />
        </>
      );
  }
}

export function ProductImage({
  categoryId,
  ancestors = [],
}: {
  categoryId: string;
  ancestors?: readonly string[];
}) {
  const tree = useCategoryTree();
  const root = rootSlugOf(tree.data ?? [], categoryId, ancestors);
  const hue = hueOf(categoryId);
  return (
    <svg className="product-image" viewBox="0 0 120 110" aria-hidden="true" focusable="false">
      <rect width="120" height="110" fill={`hsl(${hue} 60% 94%)`} />
      <g fill="none" stroke={`hsl(${hue} 45% 38%)`} strokeWidth="3" strokeLinejoin="round">
        <Outline shape={SHAPES[root ?? ''] ?? 'gadget'} />
      </g>
    </svg>
  );
}
