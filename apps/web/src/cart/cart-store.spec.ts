import { createApi } from '../api/clients';
import { CONFIG, fakeFetch } from '../test/fake-fetch';
import { currentCart, mergeGuestCarts } from './cart-store';

const SESSION = { guest_session: 'gs.signed', session_id: 's1', expires_at: '2099-01-01T00:00:00.000Z' };
const cart = (id: string, zone: string) => ({
  cart_id: id,
  user_id: null,
  session_id: 's1',
  zone,
  status: 'active',
  items: {},
  total: '0.00',
  currency: 'RUB',
  created_at: '2026-11-27T10:00:00.000Z',
  updated_at: '2026-11-27T10:00:00.000Z',
  expires_at: '2026-12-04T10:00:00.000Z',
  checkout: null,
  merged_into: null,
});

describe('cart store', () => {
  it('a guest gets a signed session from carts once and sends it on every cart call', async () => {
    const { fetch, calls } = fakeFetch(({ method, url }) => {
      if (method === 'POST' && url.pathname === '/guest-sessions') return { status: 201, body: SESSION };
      if (method === 'POST' && url.pathname === '/carts') return { status: 201, body: cart('c-msk', 'MSK') };
      if (method === 'GET' && url.pathname === '/carts/c-msk')
        return { status: 200, body: cart('c-msk', 'MSK') };
      return { status: 500 };
    });
    const api = createApi(CONFIG, () => undefined, fetch);
    expect(await currentCart(api, { kind: 'guest' }, 'MSK', false)).toBeNull();
    expect(calls).toHaveLength(0); // looking at an empty cart creates nothing
    const created = await currentCart(api, { kind: 'guest' }, 'MSK', true);
    const again = await currentCart(api, { kind: 'guest' }, 'MSK', true);
    expect(created?.cart_id).toBe('c-msk');
    expect(again?.cart_id).toBe('c-msk');
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      'POST /guest-sessions',
      'POST /carts',
      'GET /carts/c-msk',
    ]);
    expect(calls.slice(1).every((c) => c.headers.get('x-guest-session') === 'gs.signed')).toBe(true);
  });

  it('on sign-in merges the guest carts with the bearer and the guest proof, then forgets the guest', async () => {
    localStorage.setItem('mw.guest-session', JSON.stringify(SESSION));
    localStorage.setItem('mw.cart.guest.MSK', 'guest-cart');
    const { fetch, calls } = fakeFetch(() => ({
      status: 200,
      body: {
        carts: [{ ...cart('alice-msk', 'MSK'), user_id: 'alice', session_id: null }],
        merged: [
          {
            guest_cart_id: 'guest-cart',
            into_cart_id: 'alice-msk',
            zone: 'MSK',
            merged_at: '2026-11-27T10:00:00.000Z',
            dropped: [],
          },
        ],
      },
    }));
    const merged = await mergeGuestCarts(
      createApi(CONFIG, () => 'token-of-alice', fetch),
      'alice',
    );
    expect(merged?.merged).toHaveLength(1);
    expect(calls[0]?.url.pathname).toBe('/carts/merge');
    expect(calls[0]?.headers.get('authorization')).toBe('Bearer token-of-alice');
    expect(calls[0]?.headers.get('x-guest-session')).toBe('gs.signed');
    expect(localStorage.getItem('mw.guest-session')).toBeNull();
    expect(localStorage.getItem('mw.cart.guest.MSK')).toBeNull();
    expect(localStorage.getItem('mw.cart.alice.MSK')).toBe('alice-msk');
  });

  it('keeps the guest cart when the merge must wait (409 MERGE_PENDING): the next sign-in merges it', async () => {
    localStorage.setItem('mw.guest-session', JSON.stringify(SESSION));
    const { fetch } = fakeFetch(() => ({
      status: 409,
      body: { code: 'CARTS.MERGE_PENDING', message: 'retry', errors: [] },
    }));
    await expect(
      mergeGuestCarts(
        createApi(CONFIG, () => 't', fetch),
        'alice',
      ),
    ).rejects.toMatchObject({
      status: 409,
      code: 'CARTS.MERGE_PENDING',
    });
    expect(localStorage.getItem('mw.guest-session')).not.toBeNull();
  });
});
