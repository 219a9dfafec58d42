import { fireEvent, screen } from '@testing-library/react';
import { fakeFetch } from '../test/fake-fetch';
import { renderPage, signedIn } from '../test/render';
import { ActivityList } from './activity-page';
import { OrderList } from './orders-page';

const order = (id: string) => ({
  id,
  user_id: 'a11ce000-5eed-4000-8000-000000000001',
  status: 'confirmed',
  reason: null,
  zone: 'MSK',
  total: '7579.80',
  currency: 'RUB',
  order_date: '2026-11-20T17:42:08.311Z',
});

describe('paged lists (order history, activity)', () => {
  it("support pages through a customer's orders: user_id on every page, the cursor on the next", async () => {
    await signedIn('sue', ['support']);
    const { fetch, calls } = fakeFetch(({ url }) =>
      url.searchParams.get('cursor') === 'c1'
        ? { status: 200, body: { items: [order('0000000000000000000000b2')], next_cursor: null } }
        : { status: 200, body: { items: [order('0000000000000000000000b1')], next_cursor: 'c1' } },
    );
    renderPage(fetch, { path: '/x', route: '/x', page: <OrderList userId="alice-id" /> });
    expect(await screen.findByRole('link', { name: '0000000000000000000000b1' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByRole('link', { name: '0000000000000000000000b2' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    expect(calls.map((c) => [c.url.searchParams.get('user_id'), c.url.searchParams.get('cursor')])).toEqual([
      ['alice-id', null],
      ['alice-id', 'c1'],
    ]);
  });

  it('the activity of the signed-in user names no user; an empty log says so', async () => {
    await signedIn('alice', ['customer']);
    const { fetch, calls } = fakeFetch(() => ({ status: 200, body: { items: [], next_cursor: null } }));
    renderPage(fetch, { path: '/x', route: '/x', page: <ActivityList /> });
    expect(await screen.findByText('Nothing yet.')).toBeTruthy();
    expect(calls[0]?.url.pathname).toBe('/activity');
    expect(calls[0]?.url.searchParams.has('user_id')).toBe(false);
  });
});
