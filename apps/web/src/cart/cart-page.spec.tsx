import { fireEvent, screen, waitFor } from '@testing-library/react';
import { useParams } from 'react-router-dom';
import { fakeFetch } from '../test/fake-fetch';
import { renderPage, signedIn } from '../test/render';
import { CartPage } from './cart-page';

const CART = {
  cart_id: '11111111-1111-4111-8111-111111111111',
  user_id: 'alice',
  session_id: null,
  zone: 'MSK',
  status: 'active',
  items: {
    '5eed00000000000000000405': {
      name: 'Huawei Plus черный',
      qty: 2,
      unit_price: '3789.90',
      line_total: '7579.80',
      available: 44,
      purchasable: true,
    },
    '5eed00000000000000000406': {
      name: 'Снятый с продажи',
      qty: 1,
      unit_price: null,
      line_total: null,
      available: null,
      purchasable: false,
    },
  },
  total: '7579.80',
  currency: 'RUB',
  created_at: '2026-11-27T10:00:00.000Z',
  updated_at: '2026-11-27T10:00:00.000Z',
  expires_at: '2026-12-04T10:00:00.000Z',
  checkout: null,
  merged_into: null,
};

function OrderStub() {
  return <p>order page {useParams()['id']}</p>;
}

describe('cart page', () => {
  beforeEach(() => localStorage.setItem('mw.cart.alice.MSK', CART.cart_id));

  it('shows the server’s prices and total, and why a line will not be bought', async () => {
    await signedIn('alice', ['customer']);
    const { fetch } = fakeFetch(() => ({ status: 200, body: CART }));
    renderPage(fetch, { path: '/cart', route: '/cart', page: <CartPage /> });
    expect(await screen.findByText('Huawei Plus черный')).toBeTruthy();
    expect(screen.getByTestId('cart-total').textContent).toBe('7,579.80 ₽');
    expect(screen.getByText('No longer sold: it will not be checked out')).toBeTruthy();
  });

  it('a double click on check out starts one checkout with one Idempotency-Key, then opens the order the answer names', async () => {
    await signedIn('alice', ['customer']);
    let answer: (() => void) | undefined;
    const { fetch, calls } = fakeFetch(async ({ method, url }) => {
      if (method === 'GET') return { status: 200, body: CART };
      if (url.pathname.endsWith('/checkout')) {
        await new Promise<void>((r) => (answer = r));
        return {
          status: 202,
          body: {
            cart_id: CART.cart_id,
            checkout_id: '7d3c9a8e-1b2f-4c5d-9e6f-0a1b2c3d4e5f',
            order_id: '0123456789abcdef01234567',
            status: 'checking_out',
            lines: [],
            total: '7579.80',
            currency: 'RUB',
          },
        };
      }
      return { status: 500 };
    });
    renderPage(fetch, {
      path: '/cart',
      route: '/cart',
      page: <CartPage />,
      extra: [{ path: '/orders/:id', element: <OrderStub /> }],
    });
    const button = await screen.findByRole('button', { name: 'Check out' });
    fireEvent.click(button);
    fireEvent.click(button);
    await waitFor(() => expect(answer).toBeDefined());
    answer?.();
    expect(await screen.findByText('order page 0123456789abcdef01234567')).toBeTruthy();
    const checkouts = calls.filter((c) => c.method === 'POST');
    expect(checkouts).toHaveLength(1);
    expect(checkouts[0]?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(checkouts[0]?.headers.get('authorization')).toMatch(/^Bearer /);
  });

  it('a guest is asked to sign in before checking out', async () => {
    localStorage.setItem(
      'mw.guest-session',
      JSON.stringify({ guest_session: 'g', expires_at: '2099-01-01T00:00:00Z' }),
    );
    localStorage.setItem('mw.cart.guest.MSK', CART.cart_id);
    const { fetch } = fakeFetch(() => ({ status: 200, body: { ...CART, user_id: null, session_id: 's' } }));
    renderPage(fetch, { path: '/cart', route: '/cart', page: <CartPage /> });
    expect(await screen.findByRole('button', { name: 'Sign in to check out' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Check out' })).toBeNull();
  });
});
