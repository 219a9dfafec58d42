import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';
import { useCart } from '../cart/use-cart';
import { useMoney, useT } from '../i18n/i18n';
import { isMessageKey } from '../i18n/messages';
import { useZone, ZONES } from '../shell/zone';
import { ErrorView, Loading } from '../shell/status';
import { STOCK_TEXT, stockState } from './availability';
import { useCategoryTree } from './use-category-tree';
import { pathTo } from './category-path';
import { ProductImage } from './placeholder';

/** Breadcrumbs of a category by id, from the category tree (Каталог › Телефоны › Смартфоны › Android). */
export function Breadcrumbs({ categoryId, current }: { categoryId: string; current?: string }) {
  const t = useT();
  const tree = useCategoryTree();
  const path = pathTo(tree.data ?? [], categoryId);
  return (
    <nav aria-label={t('catalog.breadcrumbs')} className="breadcrumbs">
      <Link to="/">{t('catalog.home')}</Link>
      {path.map((c) => (
        <span key={c.id}>
          {' › '}
          {current === undefined && c.id === categoryId ? (
            <span aria-current="page">{c.name}</span>
          ) : (
            <Link to={`/c/${c.slug}`}>{c.name}</Link>
          )}
        </span>
      ))}
      {current !== undefined && (
        <span>
          {' › '}
          <span aria-current="page">{current}</span>
        </span>
      )}
    </nav>
  );
}

/** The product card (Cassandra read model): picture, price, attributes, availability in every zone (inventory), add to cart. */
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
  const inZone = (z: string): number => stock.data?.find((s) => s.zone === z)?.available ?? 0;
  const available = inZone(zone);
  return (
    <article className="product">
      <Breadcrumbs categoryId={p.category_id} current={p.name} />
      <div className="product-layout">
        <ProductImage categoryId={p.category_id} ancestors={p.ancestors} />
        <div className="product-buy">
          <h1>{p.name}</h1>
          <p className="product-price">
            <span className="visually-hidden">{t('product.price')}: </span>
            <strong className="price">{money(p.price)}</strong>
            {p.pricing && p.pricing.pct_savings > 0 && (
              <>
                {' '}
                <s className="list-price">{t('product.listPrice', { price: money(p.pricing.list) })}</s>{' '}
                <span className="saving">{t('product.savings', { pct: p.pricing.pct_savings })}</span>
              </>
            )}
          </p>
          <h2>{t('product.availability', { zone: t(`zone.${zone}`) })}</h2>
          {stock.isPending ? (
            <Loading />
          ) : (
            <p data-testid="availability" className={`stock stock-${stockState(available)}`}>
              {available > 0 ? t('product.available', { count: available }) : t('product.unavailable')}
            </p>
          )}
          <div className="buy-row">
            <label>
              {t('product.quantity')}{' '}
              <input
                type="number"
                min={1}
                max={99}
                value={qty}
                onChange={(e) => setQty(Math.max(1, Math.min(99, Number(e.target.value) || 1)))}
              />
            </label>
            <button
              type="button"
              className="primary"
              disabled={add.isPending || available <= 0}
              onClick={() => add.mutate({ productId: p.id, qty })}
            >
              {t('product.addToCart')}
            </button>
          </div>
          {add.isSuccess && <p role="status">{t('product.added')}</p>}
          {add.isError && <ErrorView error={add.error} />}
        </div>
      </div>
      <h2>{t('product.attributes')}</h2>
      <table className="attributes">
        <thead>
          <tr>
            <th scope="col">{t('product.attribute')}</th>
            <th scope="col">{t('product.value')}</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(p.attributes).map(([k, v]) => {
            const label = `attr.${k}`;
            return (
              <tr key={k}>
                <th scope="row">{isMessageKey(label) ? t(label) : k}</th>
                <td>{v}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <h2>{t('product.zones')}</h2>
      <table className="zones" data-testid="zones">
        <thead>
          <tr>
            <th scope="col">{t('product.zone')}</th>
            <th scope="col">{t('product.units')}</th>
          </tr>
        </thead>
        <tbody>
          {ZONES.map((z) => (
            <tr key={z} aria-current={z === zone ? 'true' : undefined}>
              <th scope="row">{t(`zone.${z}`)}</th>
              <td className={`stock stock-${stockState(inZone(z))}`}>
                {stock.isPending
                  ? '…'
                  : `${t(STOCK_TEXT[stockState(inZone(z))], { count: inZone(z) })} (${inZone(z)})`}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </article>
  );
}
