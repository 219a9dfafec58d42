import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';
import { useMoney, useT } from '../i18n/i18n';
import { ErrorView, Loading } from '../shell/status';

/** Operator: orders whose saga waits past its deadline by more than the sweeper grace (refreshed every 10 s). */
export function StuckOrdersPage() {
  const t = useT();
  const money = useMoney();
  const api = useApi();
  const stuck = useQuery({
    queryKey: ['stuck-orders'],
    queryFn: async () =>
      unwrap(await api.orders.GET('/operations/stuck-orders', { params: { query: { limit: 100 } } })),
    refetchInterval: 10_000,
  });
  if (stuck.isPending) return <Loading />;
  if (stuck.isError) return <ErrorView error={stuck.error} />;
  const { orders, grace_seconds } = stuck.data;
  return (
    <section>
      <h1>{t('staff.stuck.title')}</h1>
      <p>{t('staff.stuck.rule', { seconds: String(grace_seconds) })}</p>
      {orders.length === 0 ? (
        <p>{t('staff.stuck.none')}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t('order.title', { id: '' })}</th>
              <th scope="col">{t('order.state')}</th>
              <th scope="col">{t('order.deadline')}</th>
              <th scope="col">{t('staff.stuck.overdue')}</th>
              <th scope="col">{t('order.zone')}</th>
              <th scope="col">{t('order.userId')}</th>
              <th scope="col">{t('order.total')}</th>
            </tr>
          </thead>
          <tbody>
            {orders.map((o) => (
              <tr key={o.order_id}>
                <td>
                  <Link to={`/orders/${o.order_id}`}>{o.order_id}</Link>
                </td>
                <td>{o.state}</td>
                <td>{new Date(o.deadline).toLocaleString()}</td>
                <td>{t('staff.stuck.seconds', { seconds: String(o.overdue_seconds) })}</td>
                <td>{o.zone}</td>
                <td>{o.user_id}</td>
                <td>{money(o.total)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
