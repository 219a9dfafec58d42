import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams, useSearchParams } from 'react-router-dom';
import { useApi } from '../api/api-context';
import { ApiError, unwrap } from '../api/clients';
import { useAuth } from '../auth/auth';
import { useMoney, useT } from '../i18n/i18n';
import { ErrorView } from '../shell/status';
import { cancellable, type Order, pollInterval } from './timeline';

const at = (iso: string): string => new Date(iso).toLocaleString();

function Payment({ o }: { o: Order }) {
  const t = useT();
  const p = o.payment;
  const parts: string[] = [];
  if (p.authorized) parts.push(t('order.payment.authorized'));
  if (p.captured) parts.push(t('order.payment.captured'));
  if (p.reversed === 'voided') parts.push(t('order.payment.voided'));
  if (p.reversed === 'refunded') parts.push(t('order.payment.refunded'));
  if (p.decline_code) parts.push(t('order.payment.declined', { code: p.decline_code }));
  if (p.step) parts.push(t('order.payment.pending', { step: p.step }));
  return (
    <p data-testid="payment">
      {t('order.payment')}: {parts.join(', ') || '—'}
    </p>
  );
}

/** The order and its checkout saga: every transition with its cause, who and when, and the current deadline — live while it moves. */
export function OrderPage() {
  const t = useT();
  const money = useMoney();
  const api = useApi();
  const auth = useAuth();
  const qc = useQueryClient();
  const { id = '' } = useParams();
  const [params] = useSearchParams();
  const fresh = params.get('new') === '1';
  const order = useQuery({
    queryKey: ['order', id],
    queryFn: async () => unwrap(await api.orders.GET('/orders/{id}', { params: { path: { id } } })),
    // a just-placed order exists once orders has read the checkout: keep asking for a minute
    retry: (n, e) => fresh && e instanceof ApiError && e.status === 404 && n < 60,
    retryDelay: 1000,
    refetchInterval: (q) => pollInterval(q.state.data),
  });
  const act = useMutation({
    mutationFn: async (what: 'cancel' | 'delivery' | 'completion') =>
      unwrap(await api.orders.POST(`/orders/{id}/${what}`, { params: { path: { id } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['order', id] }),
  });
  if (order.isPending) return <p role="status">{fresh ? t('order.waiting') : t('app.loading')}</p>;
  if (order.isError) return <ErrorView error={order.error} />;
  const o = order.data;
  return (
    <article>
      <h1>{t('order.title', { id: o.id })}</h1>
      <dl className="facts">
        <dt>{t('order.status')}</dt>
        <dd data-testid="order-status">{o.status}</dd>
        <dt>{t('order.state')}</dt>
        <dd data-testid="order-state">{o.state}</dd>
        {o.deadline && (
          <>
            <dt>{t('order.deadline')}</dt>
            <dd>{at(o.deadline)}</dd>
          </>
        )}
        {o.reason && (
          <>
            <dt>{t('order.reason')}</dt>
            <dd data-testid="order-reason">{o.reason}</dd>
          </>
        )}
        {o.stock_return && (
          <>
            <dt>{t('order.stockReturn')}</dt>
            <dd data-testid="stock-return">{o.stock_return}</dd>
          </>
        )}
      </dl>
      <Payment o={o} />
      {pollInterval(o) === 1000 && <p className="live">{t('order.live')}</p>}
      <h2>{t('order.timeline')}</h2>
      {o.history.length === 0 ? (
        <p>{t('order.timeline.empty')}</p>
      ) : (
        <ol className="timeline" data-testid="timeline">
          {o.history.map((h) => (
            <li key={`${h.at}-${h.to}-${h.cause}`}>
              <time dateTime={h.at}>{at(h.at)}</time> <strong>{h.to}</strong> ← {h.from} · {h.event} ·{' '}
              <small>
                {t('order.cause', { cause: h.cause })}
                {h.by && ` · ${t('order.by', { who: `${h.by.role} ${h.by.sub}` })}`}
              </small>
            </li>
          ))}
        </ol>
      )}
      <h2>{t('order.lines')}</h2>
      <ul>
        {o.lines.map((l) => (
          <li key={l.product_id}>
            {l.name} × {l.qty} — {money(l.line_total)}
          </li>
        ))}
      </ul>
      <p>
        {t('order.total')}: <strong>{money(o.totals.total)}</strong>
      </p>
      {cancellable(o) && (auth.hasRole('customer') || auth.hasRole('support')) && (
        <button type="button" disabled={act.isPending} onClick={() => act.mutate('cancel')}>
          {act.isPending ? t('order.cancelling') : t('order.cancel')}
        </button>
      )}
      {auth.hasRole('operator') && o.status === 'confirmed' && (
        <button type="button" disabled={act.isPending} onClick={() => act.mutate('delivery')}>
          {t('order.delivery')}
        </button>
      )}
      {auth.hasRole('operator') && o.status === 'delivering' && (
        <button type="button" disabled={act.isPending} onClick={() => act.mutate('completion')}>
          {t('order.completion')}
        </button>
      )}
      {act.isError && <ErrorView error={act.error} />}
    </article>
  );
}
