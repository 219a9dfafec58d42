/**
 * "New in category X" over bucketed partitions: each bucket is read newest-first after the
 * cursor position, the pages are merged by (created_at DESC, product_id DESC) and cut at the
 * limit. The cursor is the clustering key of the last item: stable under inserts.
 */
export interface ListingPosition {
  readonly created_at: Date;
  readonly product_id: string;
}

export function compareNewest(a: ListingPosition, b: ListingPosition): number {
  const t = b.created_at.getTime() - a.created_at.getTime();
  if (t !== 0) return t;
  return a.product_id < b.product_id ? 1 : a.product_id > b.product_id ? -1 : 0;
}

export function mergeNewest<T extends ListingPosition>(
  pages: readonly (readonly T[])[],
  limit: number,
): { items: T[]; more: boolean } {
  const all = pages.flat().sort(compareNewest);
  return { items: all.slice(0, limit), more: all.length > limit };
}

export function encodeListingCursor(p: ListingPosition): string {
  return Buffer.from(JSON.stringify([p.created_at.getTime(), p.product_id])).toString('base64url');
}

export function decodeListingCursor(text: string): ListingPosition | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(v) || v.length !== 2) return null;
    const [t, id] = v as unknown[];
    if (
      typeof t !== 'number' ||
      !Number.isSafeInteger(t) ||
      t < 0 ||
      typeof id !== 'string' ||
      !/^[0-9a-f]{24}$/.test(id)
    )
      return null;
    return { created_at: new Date(t), product_id: id };
  } catch {
    return null;
  }
}
