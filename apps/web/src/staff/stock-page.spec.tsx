import { fireEvent, screen } from '@testing-library/react';
import { fakeFetch } from '../test/fake-fetch';
import { renderPage, signedIn } from '../test/render';
import { StockPage } from './stock-page';

const P = '5eed00000000000000000405';
const level = (available: number, version: number) => ({
  product_id: P,
  zone: 'MSK',
  available,
  reserved: 1,
  committed: 3,
  version,
  updated_at: '2026-11-27T10:00:00.000Z',
});

describe('stock console: stock-take', () => {
  it('sends the count with the ETag it read as If-Match; a sale in between (412) asks for a recount', async () => {
    await signedIn('stan', ['stock_manager']);
    const { fetch, calls } = fakeFetch(({ method, url }) => {
      if (url.pathname === `/stock/${P}/MSK` && method === 'GET')
        return { status: 200, body: level(42, 9), headers: { etag: '"9"' } };
      if (url.pathname === `/stock/${P}/MSK` && method === 'PUT')
        return { status: 412, body: { code: 'INVENTORY.STALE_VERSION', message: 'stale', errors: [] } };
      if (url.pathname === `/stock/${P}`) return { status: 200, body: [level(42, 9)] };
      if (url.pathname.startsWith('/ledger/')) return { status: 200, body: [] };
      if (url.pathname === '/low-stock')
        return { status: 200, body: { zone: 'MSK', threshold: 5, items: [] } };
      return { status: 500 };
    });
    renderPage(fetch, { path: `/staff/stock?product=${P}`, route: '/staff/stock', page: <StockPage /> });
    fireEvent.click(await screen.findByRole('button', { name: 'Read the current level' }));
    expect(await screen.findByText('Read version "9": 42 available')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Counted on the shelf'), { target: { value: '40' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save the count' }));
    expect(await screen.findByText(/The stock moved since you read it/)).toBeTruthy();
    const put = calls.find((c) => c.method === 'PUT');
    expect(put?.headers.get('if-match')).toBe('"9"');
    expect(put?.body).toEqual({ available: 40, reason: 'stock-take' });
  });
});
