/**
 * Which cart is "the cart": a guest's lives under a signed guest session from carts (POST
 * /guest-sessions, sent back as X-Guest-Session); a user's is their newest active cart in the zone.
 * One cart per owner and zone. Prices and totals always come from the carts service.
 */
import { type Api, ApiError, unwrap } from '../api/clients';
import type { paths } from '../api/generated/carts';

export type Cart = paths['/carts/{id}']['get']['responses'][200]['content']['application/json'];
export type MergeResult = paths['/carts/merge']['post']['responses'][200]['content']['application/json'];

/** Signed-in user (their token subject) or the guest. */
export type Owner = { kind: 'user'; subject: string } | { kind: 'guest' };

const GUEST_KEY = 'mw.guest-session';
const cartKey = (owner: Owner, zone: string): string =>
  `mw.cart.${owner.kind === 'user' ? owner.subject : 'guest'}.${zone}`;

interface GuestSession {
  readonly guest_session: string;
  readonly expires_at: string;
}

export function storedGuestSession(now = Date.now()): string | undefined {
  const raw = localStorage.getItem(GUEST_KEY);
  if (!raw) return undefined;
  const s = JSON.parse(raw) as GuestSession;
  return Date.parse(s.expires_at) > now + 60_000 ? s.guest_session : undefined;
}

async function guestSession(api: Api): Promise<string> {
  const stored = storedGuestSession();
  if (stored) return stored;
  const s = unwrap(await api.carts.POST('/guest-sessions'));
  localStorage.setItem(
    GUEST_KEY,
    JSON.stringify({ guest_session: s.guest_session, expires_at: s.expires_at }),
  );
  return s.guest_session;
}

export async function ownerHeaders(api: Api, owner: Owner): Promise<Record<string, string>> {
  return owner.kind === 'guest' ? { 'X-Guest-Session': await guestSession(api) } : {};
}

async function fetchCart(api: Api, id: string, headers: Record<string, string>): Promise<Cart | undefined> {
  try {
    return unwrap(await api.carts.GET('/carts/{id}', { params: { path: { id } }, headers }));
  } catch (e) {
    if (e instanceof ApiError && (e.status === 404 || e.status === 401)) return undefined;
    throw e;
  }
}

/** The owner's cart in the zone; with `create`, a new empty one when there is none. Checked-out carts are kept until the order is placed. */
export async function currentCart(
  api: Api,
  owner: Owner,
  zone: string,
  create: boolean,
): Promise<Cart | null> {
  if (owner.kind === 'guest' && !create && !storedGuestSession()) return null;
  const headers = await ownerHeaders(api, owner);
  const key = cartKey(owner, zone);
  const saved = localStorage.getItem(key);
  if (saved) {
    const cart = await fetchCart(api, saved, headers);
    if (cart && cart.status === 'active') return cart;
    if (cart && cart.status === 'checking_out' && !create) return cart;
    localStorage.removeItem(key);
  }
  if (owner.kind === 'user') {
    const { cart_ids } = unwrap(
      await api.carts.GET('/carts', { params: { query: { status: 'active', limit: 20 } } }),
    );
    for (const id of cart_ids) {
      const cart = await fetchCart(api, id, headers);
      if (cart && cart.zone === zone && cart.status === 'active') {
        localStorage.setItem(key, id);
        return cart;
      }
    }
  }
  if (!create) return null;
  const cart = unwrap(await api.carts.POST('/carts', { body: { zone }, headers })) as Cart;
  localStorage.setItem(key, cart.cart_id);
  return cart;
}

export async function putItem(
  api: Api,
  owner: Owner,
  cartId: string,
  productId: string,
  qty: number,
): Promise<Cart> {
  const headers = await ownerHeaders(api, owner);
  if (qty <= 0)
    return unwrap(
      await api.carts.DELETE('/carts/{id}/items/{product_id}', {
        params: { path: { id: cartId, product_id: productId } },
        headers,
      }),
    ) as Cart;
  return unwrap(
    await api.carts.PUT('/carts/{id}/items/{product_id}', {
      params: { path: { id: cartId, product_id: productId } },
      body: { qty },
      headers,
    }),
  ) as Cart;
}

/**
 * On sign-in: the guest session's carts go into the user's carts (POST /carts/merge with the bearer
 * and the guest's proof). Nothing to merge (404) is not an error. The guest session is forgotten after.
 */
export async function mergeGuestCarts(api: Api, subject: string): Promise<MergeResult | undefined> {
  const session = storedGuestSession();
  if (!session) return undefined;
  const forgetGuest = (): void => {
    localStorage.removeItem(GUEST_KEY);
    for (const k of Object.keys(localStorage)) if (k.startsWith('mw.cart.guest.')) localStorage.removeItem(k);
  };
  try {
    const merged = unwrap(await api.carts.POST('/carts/merge', { headers: { 'X-Guest-Session': session } }));
    for (const c of merged.carts) localStorage.setItem(cartKey({ kind: 'user', subject }, c.zone), c.cart_id);
    forgetGuest();
    return merged;
  } catch (e) {
    // nothing of this session to merge; any other failure keeps the guest cart for the next sign-in
    if (e instanceof ApiError && e.status === 404) {
      forgetGuest();
      return undefined;
    }
    throw e;
  }
}
