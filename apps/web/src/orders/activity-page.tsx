import { useInfiniteQuery } from '@tanstack/react-query';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';
import { useT } from '../i18n/i18n';
import { ErrorView, Loading } from '../shell/status';

/** What a user did (carts' activity log): the signed-in user's, or (support) a named user's. */
export function ActivityList({ userId }: { userId?: string }) {
  const t = useT();
  const api = useApi();
  const list = useInfiniteQuery({
    queryKey: ['activity', userId ?? 'mine'],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      unwrap(
        await api.carts.GET('/activity', {
          params: {
            query: {
              limit: 20,
              ...(userId ? { user_id: userId } : {}),
              ...(pageParam ? { cursor: pageParam } : {}),
            },
          },
        }),
      ),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  if (list.isPending) return <Loading />;
  if (list.isError) return <ErrorView error={list.error} />;
  const items = list.data.pages.flatMap((p) => p.items);
  if (items.length === 0) return <p>{t('activity.empty')}</p>;
  return (
    <>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('activity.when')}</th>
            <th scope="col">{t('activity.what')}</th>
            <th scope="col">{t('activity.about')}</th>
          </tr>
        </thead>
        <tbody>
          {items.map((a) => (
            <tr key={a.event_id + a.event_type}>
              <td>{new Date(a.event_time).toLocaleString()}</td>
              <td>{a.event_type}</td>
              <td>{a.resource_id ?? '—'}</td>
            </tr>
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

export function ActivityPage() {
  const t = useT();
  return (
    <section>
      <h1>{t('activity.title')}</h1>
      <ActivityList />
    </section>
  );
}
