import { useState } from 'react';
import { useT } from '../i18n/i18n';
import type { MergeResult } from './cart-store';

const KEY = 'mw.merge-notice';

export function rememberMerge(m: MergeResult): void {
  sessionStorage.setItem(KEY, JSON.stringify(m));
}

/** What the sign-in merge did, shown once. */
export function MergeNotice() {
  const t = useT();
  const [merge] = useState<MergeResult | undefined>(() => {
    const raw = sessionStorage.getItem(KEY);
    sessionStorage.removeItem(KEY);
    return raw ? (JSON.parse(raw) as MergeResult) : undefined;
  });
  if (!merge || merge.merged.length === 0) return null;
  const dropped = merge.merged.flatMap((m) => m.dropped.map((d) => `${d.product_id} (${d.reason})`));
  return (
    <div role="status" className="notice">
      <p>{t('auth.merged', { count: merge.merged.length })}</p>
      {dropped.length > 0 && <p>{t('auth.mergedDropped', { products: dropped.join(', ') })}</p>}
    </div>
  );
}
