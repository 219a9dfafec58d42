import { useQuery } from '@tanstack/react-query';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';
import { useMoney, useT } from '../i18n/i18n';
import { ErrorView, Loading } from '../shell/status';
import { salesByDayAndZone } from './sales';

const day = (d: Date): string => d.toISOString().slice(0, 10);

/** Operator: sales of the last 30 days by day and zone, each a bar scaled to the best cell. */
export function OperatorPage() {
  const t = useT();
  const money = useMoney();
  const api = useApi();
  const sales = useQuery({
    queryKey: ['analytics-sales'],
    queryFn: async () => {
      const to = new Date();
      const from = new Date(to.getTime() - 29 * 86_400_000);
      return unwrap(
        await api.orders.GET('/analytics/sales', { params: { query: { from: day(from), to: day(to) } } }),
      );
    },
  });
  const top = useQuery({
    queryKey: ['analytics-top'],
    queryFn: async () => {
      const to = new Date();
      const from = new Date(to.getTime() - 29 * 86_400_000);
      return unwrap(
        await api.orders.GET('/analytics/top-products', {
          params: { query: { from: day(from), to: day(to), by: 'revenue', limit: 5 } },
        }),
      );
    },
  });
  if (sales.isPending) return <Loading />;
  if (sales.isError) return <ErrorView error={sales.error} />;
  const cells = salesByDayAndZone(sales.data.rows);
  const best = Math.max(1, ...cells.map((c) => c.revenue));
  return (
    <section>
      <h1>{t('staff.operator.title')}</h1>
      <table className="chart">
        <thead>
          <tr>
            <th scope="col">{t('staff.operator.day')}</th>
            <th scope="col">{t('order.zone')}</th>
            <th scope="col">{t('staff.operator.orders')}</th>
            <th scope="col">{t('staff.operator.revenue')}</th>
          </tr>
        </thead>
        <tbody>
          {cells.map((c) => (
            <tr key={`${c.day}-${c.zone}`}>
              <td>{c.day}</td>
              <td>{c.zone}</td>
              <td>{c.orders}</td>
              <td>
                <span className="bar" style={{ width: `${Math.round((c.revenue / best) * 200)}px` }} />{' '}
                {money(c.revenue.toFixed(2))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>{t('staff.operator.top')}</h2>
      {top.isPending ? (
        <Loading />
      ) : top.isError ? (
        <ErrorView error={top.error} />
      ) : (
        <ol>
          {top.data.categories
            .flatMap((c) => c.products)
            .sort((a, b) => Number(b.revenue) - Number(a.revenue))
            .slice(0, 10)
            .map((p) => (
              <li key={p.product_id}>
                {p.name}: {money(p.revenue)} ({p.units})
              </li>
            ))}
        </ol>
      )}
    </section>
  );
}
