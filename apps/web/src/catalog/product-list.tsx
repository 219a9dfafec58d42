import { Link } from 'react-router-dom';
import { useCart } from '../cart/use-cart';
import { useMoney, useT } from '../i18n/i18n';
import { STOCK_TEXT, stockState, useAvailability } from './availability';
import { ProductImage } from './placeholder';

/** A product as the listings send it; only the fields a card shows. */
export interface ListedProduct {
  readonly id: string;
  readonly name: string;
  readonly price: string;
  readonly category_id: string;
  readonly ancestors?: readonly string[];
  /** Search answers carry the list price; the category listing only the saving. */
  readonly pricing?: { readonly list: string; readonly pct_savings?: number };
  readonly pct_savings?: number | null;
}

/** What a card says of stock in the zone (nothing while it loads). */
export function Availability({ available }: { available: number | undefined }) {
  const t = useT();
  if (available === undefined) return <p className="stock stock-unknown">{t('stock.checking')}</p>;
  const state = stockState(available);
  return (
    <p className={`stock stock-${state}`} data-testid="card-availability">
      {t(STOCK_TEXT[state], { count: available })}
    </p>
  );
}

function ProductCard({ product: p, available }: { product: ListedProduct; available: number | undefined }) {
  const t = useT();
  const money = useMoney();
  const { add } = useCart();
  const savings = p.pricing?.pct_savings ?? p.pct_savings ?? 0;
  return (
    <li className="card" data-testid="product-card">
      <Link to={`/p/${p.id}`} className="card-link">
        <ProductImage categoryId={p.category_id} ancestors={p.ancestors} />
        <span className="card-name">{p.name}</span>
      </Link>
      <p className="card-price">
        <span className="price">{money(p.price)}</span>
        {p.pricing && savings > 0 && <s className="list-price">{money(p.pricing.list)}</s>}
        {savings > 0 && <span className="saving">−{savings}%</span>}
      </p>
      <Availability available={available} />
      <button
        type="button"
        className="primary"
        disabled={add.isPending || !available}
        onClick={() => add.mutate({ productId: p.id, qty: 1 })}
      >
        {add.isSuccess ? t('product.added') : t('product.addToCart')}{' '}
        {/* the visible words first, then which product: a screen reader hears both, voice control matches the label */}
        <span className="visually-hidden">{p.name}</span>
      </button>
    </li>
  );
}

/** Products as a grid of cards, with their availability in the chosen zone (one request per page of 100). */
export function ProductList({ items }: { items: readonly ListedProduct[] }) {
  const availability = useAvailability(items.map((p) => p.id));
  return (
    <ul className="products">
      {items.map((p) => (
        <ProductCard key={p.id} product={p} available={availability.data?.get(p.id)} />
      ))}
    </ul>
  );
}
