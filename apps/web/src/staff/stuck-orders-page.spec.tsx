import { screen } from '@testing-library/react';
import { fakeFetch } from '../test/fake-fetch';
import { renderPage, signedIn } from '../test/render';
import { StuckOrdersPage } from './stuck-orders-page';

describe('operator: stuck orders', () => {
  it('lists what orders answers, each order linked to its timeline', async () => {
    await signedIn('otto', ['operator']);
    const { fetch, calls } = fakeFetch(({ url }) =>
      url.pathname === '/operations/stuck-orders'
        ? {
            status: 200,
            body: {
              as_of: '2026-11-27T10:05:00.000Z',
              grace_seconds: 30,
              orders: [
                {
                  order_id: '2080b7bbfd2b207dcbe80bb1',
                  user_id: 'a11ce000-5eed-4000-8000-000000000001',
                  zone: 'MSK',
                  state: 'AWAITING_PAYMENT',
                  deadline: '2026-11-27T10:01:00.000Z',
                  overdue_seconds: 240,
                  total: '7579.80',
                  updated_at: '2026-11-27T10:00:00.000Z',
                },
              ],
            },
          }
        : { status: 500 },
    );
    renderPage(fetch, {
      path: '/staff/stuck-orders',
      route: '/staff/stuck-orders',
      page: <StuckOrdersPage />,
    });
    const link = await screen.findByRole('link', { name: '2080b7bbfd2b207dcbe80bb1' });
    expect(link.getAttribute('href')).toBe('/orders/2080b7bbfd2b207dcbe80bb1');
    expect(screen.getByText('AWAITING_PAYMENT')).toBeTruthy();
    expect(screen.getByText('240 s')).toBeTruthy();
    expect(calls[0]?.headers.get('authorization')).toMatch(/^Bearer /);
  });
});
