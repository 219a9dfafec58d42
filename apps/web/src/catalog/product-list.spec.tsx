import { screen, within } from '@testing-library/react';
import { fakeFetch } from '../test/fake-fetch';
import { renderPage } from '../test/render';
import { stockState } from './availability';
import { ProductList } from './product-list';

const id = (n: number): string => `5eed${n.toString(16).padStart(20, '0')}`;
const items = [1, 2, 3].map((n) => ({
  id: id(n),
  name: `Телефон ${n}`,
  price: '9990.00',
  category_id: id(100),
  ...(n === 1 ? { pricing: { list: '12990.00', pct_savings: 23 } } : {}),
}));

describe('product cards', () => {
  it('classifies a level as in stock, a few left or out of stock', () => {
    expect([0, 1, 5, 6, 100].map(stockState)).toEqual(['out', 'few', 'few', 'in', 'in']);
  });

  it('shows each card’s availability in the zone from one request for the page; out of stock cannot be added', async () => {
    const { fetch, calls } = fakeFetch(({ url }) => {
      if (url.pathname === '/availability')
        return {
          status: 200,
          body: {
            zone: url.searchParams.get('zone'),
            items: [
              { product_id: id(1), available: 40 },
              { product_id: id(2), available: 2 },
              { product_id: id(3), available: 0 },
            ],
          },
        };
      if (url.pathname === '/categories') return { status: 200, body: [] };
      return { status: 404, body: {} };
    });
    renderPage(fetch, { path: '/', route: '/', page: <ProductList items={items} /> });
    const cards = await screen.findAllByTestId('product-card');
    await within(cards[2] as HTMLElement).findByText('Out of stock');
    expect(cards.map((c) => within(c).getByTestId('card-availability').textContent)).toEqual([
      'In stock',
      'Only 2 left',
      'Out of stock',
    ]);
    expect(within(cards[0] as HTMLElement).getByText('12,990.00 ₽').tagName).toBe('S');
    expect(within(cards[0] as HTMLElement).getByText('−23%')).toBeTruthy();
    const add = (n: number) =>
      within(cards[n] as HTMLElement).getByRole('button', { name: `Add to cart Телефон ${n + 1}` });
    expect((add(0) as HTMLButtonElement).disabled).toBe(false);
    expect((add(2) as HTMLButtonElement).disabled).toBe(true);
    const asked = calls.filter((c) => c.url.pathname === '/availability');
    expect(asked).toHaveLength(1);
    expect(asked[0]?.url.searchParams.get('product_ids')).toBe(items.map((p) => p.id).join(','));
    expect(asked[0]?.url.searchParams.get('zone')).toBe('MSK');
  });
});
