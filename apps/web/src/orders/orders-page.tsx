import { Link } from 'react-router-dom';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';
import { useMoney, useT } from '../i18n/i18n';
import { PagedTable, pageQuery } from '../shell/paged-table';

/** Order history, newest first: the signed-in customer's, or (support, operator) a named customer's. */
export function OrderList({ userId }: { userId?: string }) {
  const t = useT();
  const money = useMoney();
  const api = useApi();
  return (
    <PagedTable
      queryKey={['orders', userId ?? 'mine']}
      fetchPage={async (cursor) =>
        unwrap(await api.orders.GET('/orders', { params: { query: pageQuery(userId, cursor) } }))
      }
      empty={t('order.history.empty')}
      columns={[
        t('order.date'),
        t('order.title', { id: '' }),
        t('order.zone'),
        t('order.status'),
        t('order.total'),
      ]}
      rowKey={(o) => o.id}
      row={(o) => (
        <>
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
        </>
      )}
    />
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
