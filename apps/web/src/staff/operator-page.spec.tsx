import { screen } from '@testing-library/react';
import { fakeFetch } from '../test/fake-fetch';
import { renderPage, signedIn } from '../test/render';
import { OperatorPage } from './operator-page';

const range = { from: '2026-10-29', to: '2026-11-27', zone: null, currency: 'RUB' };

describe('operator: operations page', () => {
  it('charts the basket and the cancellations of the last 30 days, each with its figures in the caption', async () => {
    await signedIn('otto', ['operator']);
    const { fetch, calls } = fakeFetch(({ url }) => {
      switch (url.pathname) {
        case '/analytics/sales':
          return {
            status: 200,
            body: { ...range, category_id: null, totals: { revenue: '0.00', units: 0, orders: 0 }, rows: [] },
          };
        case '/analytics/top-products':
          return {
            status: 200,
            body: { ...range, category_id: null, by: 'revenue', limit: 5, categories: [] },
          };
        case '/analytics/basket':
          return {
            status: 200,
            body: {
              ...range,
              orders: 3,
              revenue: '24369.60',
              units: 6,
              average_basket: '8123.20',
              by_day: [{ day: '2026-11-01', orders: 3, revenue: '24369.60', average_basket: '8123.20' }],
            },
          };
        case '/analytics/cancellations':
          return {
            status: 200,
            body: {
              ...range,
              placed: 40,
              cancelled: 5,
              rate: 0.125,
              sales_reversed: 1,
              by_reason: [{ reason: 'PAYMENT_DECLINED', cancelled: 5, rate: 0.125 }],
            },
          };
        default:
          return { status: 500 };
      }
    });
    renderPage(fetch, { path: '/staff/operator', route: '/staff/operator', page: <OperatorPage /> });
    expect(await screen.findByText('3 orders sold, average basket 8,123.20 ₽')).toBeTruthy();
    expect(await screen.findByText('5 of 40 placed orders cancelled')).toBeTruthy();
    expect(await screen.findByRole('img', { name: 'Cancellations by reason (30 days)' })).toBeTruthy();
    expect(await screen.findByRole('img', { name: 'Average basket by day (30 days)' })).toBeTruthy();
    const basket = calls.find((c) => c.url.pathname === '/analytics/basket');
    const from = new Date(`${basket?.url.searchParams.get('from') ?? ''}T00:00:00Z`).getTime();
    const to = new Date(`${basket?.url.searchParams.get('to') ?? ''}T00:00:00Z`).getTime();
    expect((to - from) / 86_400_000).toBe(29);
  });
});
