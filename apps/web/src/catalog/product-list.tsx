import { Link } from 'react-router-dom';
import { useMoney } from '../i18n/i18n';

/** A product as the listings send it; only the fields a list shows. */
export interface ListedProduct {
  readonly id: string;
  readonly name: string;
  readonly price: string;
}

export function ProductList({ items }: { items: readonly ListedProduct[] }) {
  const money = useMoney();
  return (
    <ul className="products">
      {items.map((p) => (
        <li key={p.id}>
          <Link to={`/p/${p.id}`}>{p.name}</Link> <span className="price">{money(p.price)}</span>
        </li>
      ))}
    </ul>
  );
}
