import { type UseQueryResult, useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';
import { useMoney, useT } from '../i18n/i18n';
import { ErrorView, Loading } from '../shell/status';
import { basketSeries, cancellationSeries, type Series } from './analytics-series';
import { salesByDayAndZone } from './sales';

// chart.js is loaded with the first chart, not with the app (ADR 0013: the size budget)
const BarChart = lazy(() => import('./bar-chart'));

const day = (d: Date): string => d.toISOString().slice(0, 10);
/** The last 30 days, today included (UTC days, as the analytics API counts them). */
const last30 = (): { from: string; to: string } => {
  const to = new Date();
  return { from: day(new Date(to.getTime() - 29 * 86_400_000)), to: day(to) };
};

/** Operator: sales of the last 30 days by day and zone, each a bar scaled to the best cell; basket and cancellations as charts. */
export function OperatorPage() {
  const t = useT();
  const money = useMoney();
  const api = useApi();
  const sales = useQuery({
    queryKey: ['analytics-sales'],
    queryFn: async () => unwrap(await api.orders.GET('/analytics/sales', { params: { query: last30() } })),
  });
  const top = useQuery({
    queryKey: ['analytics-top'],
    queryFn: async () =>
      unwrap(
        await api.orders.GET('/analytics/top-products', {
          params: { query: { ...last30(), by: 'revenue', limit: 5 } },
        }),
      ),
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
      <BasketChart />
      <CancellationsChart />
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

/** A titled chart of one analytics answer, with its figures in words underneath. */
function ChartFigure<T>(props: {
  title: string;
  query: UseQueryResult<T>;
  series: (data: T) => Series;
  caption: (data: T) => string;
}) {
  const { title, query } = props;
  return (
    <figure className="chart-figure">
      <h2>{title}</h2>
      {query.isPending ? (
        <Loading />
      ) : query.isError ? (
        <ErrorView error={query.error} />
      ) : (
        <>
          <Suspense fallback={<Loading />}>
            <BarChart label={title} series={props.series(query.data)} />
          </Suspense>
          <figcaption>{props.caption(query.data)}</figcaption>
        </>
      )}
    </figure>
  );
}

function BasketChart() {
  const t = useT();
  const money = useMoney();
  const api = useApi();
  const basket = useQuery({
    queryKey: ['analytics-basket'],
    queryFn: async () => unwrap(await api.orders.GET('/analytics/basket', { params: { query: last30() } })),
  });
  return (
    <ChartFigure
      title={t('staff.operator.basket')}
      query={basket}
      series={(d) => basketSeries(d, t('staff.operator.averageBasket'))}
      caption={(d) =>
        t('staff.operator.basketSummary', {
          orders: String(d.orders),
          average: money(d.average_basket ?? '0.00'),
        })
      }
    />
  );
}

function CancellationsChart() {
  const t = useT();
  const api = useApi();
  const cancellations = useQuery({
    queryKey: ['analytics-cancellations'],
    queryFn: async () =>
      unwrap(await api.orders.GET('/analytics/cancellations', { params: { query: last30() } })),
  });
  return (
    <ChartFigure
      title={t('staff.operator.cancellations')}
      query={cancellations}
      series={(d) => cancellationSeries(d, t('staff.operator.cancelled'))}
      caption={(d) =>
        t('staff.operator.cancellationsSummary', { cancelled: String(d.cancelled), placed: String(d.placed) })
      }
    />
  );
}
