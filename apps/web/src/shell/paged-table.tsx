import { useInfiniteQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useT } from '../i18n/i18n';
import { ErrorView, Loading } from './status';

/** One page of a cursor-paginated list, as the services answer it (`next_cursor: null` on the last page). */
export interface CursorPage<T> {
  readonly items: readonly T[];
  readonly next_cursor?: string | null;
}

/**
 * A cursor-paginated list as a table with "Load more": the order history and the activity log
 * (the signed-in user's, or a named customer's for support). `fetchPage` gets the cursor of the
 * next page (undefined for the first).
 */
export function PagedTable<T>(props: {
  queryKey: readonly unknown[];
  fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>;
  empty: string;
  columns: readonly string[];
  rowKey: (item: T) => string;
  row: (item: T) => ReactNode;
}) {
  const t = useT();
  const list = useInfiniteQuery({
    queryKey: props.queryKey,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => props.fetchPage(pageParam),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  if (list.isPending) return <Loading />;
  if (list.isError) return <ErrorView error={list.error} />;
  const items = list.data.pages.flatMap((p) => p.items);
  if (items.length === 0) return <p>{props.empty}</p>;
  return (
    <>
      <table>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th scope="col" key={c}>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={props.rowKey(item)}>{props.row(item)}</tr>
          ))}
        </tbody>
      </table>
      {list.hasNextPage && (
        <button type="button" disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
          {t('app.loadMore')}
        </button>
      )}
    </>
  );
}

/** The query of a paged list: the caller's own (no user_id) or a named user's, 20 a page. */
export const pageQuery = (userId: string | undefined, cursor: string | undefined) => ({
  limit: 20,
  ...(userId ? { user_id: userId } : {}),
  ...(cursor ? { cursor } : {}),
});
