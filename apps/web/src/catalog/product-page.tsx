import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router-dom';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';
import { useCart } from '../cart/use-cart';
import { useMoney, useT } from '../i18n/i18n';
import { useZone } from '../shell/zone';
import { ErrorView, Loading } from '../shell/status';

/** The product card (Cassandra read model) with its availability in the chosen zone (inventory). */
export function ProductPage() {
  const t = useT();
  const money = useMoney();
  const api = useApi();
  const { id = '' } = useParams();
  const { zone } = useZone();
  const { add } = useCart();
  const [qty, setQty] = useState(1);
  const card = useQuery({
    queryKey: ['product-card', id],
    queryFn: async () => unwrap(await api.catalog.GET('/products/{id}/card', { params: { path: { id } } })),
  });
  const stock = useQuery({
    queryKey: ['stock', id],
    queryFn: async () =>
      unwrap(await api.inventory.GET('/stock/{productId}', { params: { path: { productId: id } } })),
  });
  if (card.isPending) return <Loading />;
  if (card.isError) return <ErrorView error={card.error} />;
  const p = card.data;
  const available = stock.data?.find((s) => s.zone === zone)?.available ?? 0;
  return (
    <article className="product">
      <h1>{p.name}</h1>
      <p>
        {t('product.price')}: <strong className="price">{money(p.price)}</strong>
        {p.pricing && p.pricing.pct_savings > 0 && (
          <>
            {' '}
            <s>{t('product.listPrice', { price: money(p.pricing.list) })}</s>{' '}
            {t('product.savings', { pct: p.pricing.pct_savings })}
          </>
        )}
      </p>
      <h2>{t('product.attributes')}</h2>
      <dl>
        {Object.entries(p.attributes).map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      <h2>{t('product.availability', { zone: t(`zone.${zone}`) })}</h2>
      {stock.isPending ? (
        <Loading />
      ) : (
        <p data-testid="availability">
          {available > 0 ? t('product.available', { count: available }) : t('product.unavailable')}
        </p>
      )}
      <label>
        {t('product.quantity')}{' '}
        <input
          type="number"
          min={1}
          max={99}
          value={qty}
          onChange={(e) => setQty(Math.max(1, Math.min(99, Number(e.target.value) || 1)))}
        />
      </label>{' '}
      <button
        type="button"
        disabled={add.isPending || available <= 0}
        onClick={() => add.mutate({ productId: p.id, qty })}
      >
        {t('product.addToCart')}
      </button>
      {add.isSuccess && <p role="status">{t('product.added')}</p>}
      {add.isError && <ErrorView error={add.error} />}
    </article>
  );
}
