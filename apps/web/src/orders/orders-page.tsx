import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';
import { useMoney, useT } from '../i18n/i18n';
import { ErrorView, Loading } from '../shell/status';

/** Order history, newest first: the signed-in customer's, or (support, operator) a named customer's. */
export function OrderList({ userId }: { userId?: string }) {
  const t = useT();
  const money = useMoney();
  const api = useApi();
  const list = useInfiniteQuery({
    queryKey: ['orders', userId ?? 'mine'],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      unwrap(
        await api.orders.GET('/orders', {
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
  if (items.length === 0) return <p>{t('order.history.empty')}</p>;
  return (
    <>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('order.date')}</th>
            <th scope="col">{t('order.title', { id: '' })}</th>
            <th scope="col">{t('order.zone')}</th>
            <th scope="col">{t('order.status')}</th>
            <th scope="col">{t('order.total')}</th>
          </tr>
        </thead>
        <tbody>
          {items.map((o) => (
            <tr key={o.id}>
              <td>{new Date(o.order_date).toLocaleString()}</td>
              <td>
                <Link to={`/orders/${o.id}`}>{o.id}</Link>
              </td>
              <td>{o.zone}</td>
              <td>
                {o.status}
                {o.reason && ` (${o.reason})`}
              </td>
              <td>{money(o.total)}</td>
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

export function OrdersPage() {
  const t = useT();
  return (
    <section>
      <h1>{t('order.history')}</h1>
      <OrderList />
    </section>
  );
}
