import { Cart, newCart } from '../carts/cart';
import { PricedProduct } from '../products/product';
import { bucketOf, decideIntent, dueForRelay, priceCheckout } from './checkout';

const t0 = new Date('2026-11-21T10:00:00.000Z');
const base = newCart({ cart_id: 'c', user_id: 'u', session_id: null, zone: 'MSK' }, t0, 60);
const cart = (over: Partial<Cart> = {}): Cart => ({ ...base, ...over });
const p = (id: string, price: number): PricedProduct => ({ product_id: id, name: `n-${id}`, category_id: 'cat', price, version: 1 });
const rules = { zones: ['MSK', 'SPB'], maxLines: 3 };

describe('checkout pricing', () => {
  it('prices every line from the product table, never from what the line was put with', () => {
    const c = cart({ items: { b: { name: 'old', qty: 2, unit_price: 1 }, a: { name: 'old', qty: 1, unit_price: 1 } } });
    const r = priceCheckout(c, new Map([['a', p('a', 378990)], ['b', p('b', 1000)]]), rules);
    expect(r).toEqual({
      ok: true,
      lines: [
        { product_id: 'a', name: 'n-a', category_id: 'cat', qty: 1, unit_price: 378990 },
        { product_id: 'b', name: 'n-b', category_id: 'cat', qty: 2, unit_price: 1000 },
      ],
      total: 380990,
    });
  });

  it.each([
    ['an empty cart', cart(), 'CARTS.EMPTY_CART', 'items'],
    ['too many lines', cart({ items: Object.fromEntries(['a', 'b', 'c', 'd'].map((k) => [k, { name: k, qty: 1, unit_price: 1 }])) }), 'CARTS.TOO_MANY_LINES', 'items'],
    ['a product the catalog deleted', cart({ items: { gone: { name: 'x', qty: 1, unit_price: 1 } } }), 'CARTS.PRODUCT_UNAVAILABLE', 'items.gone'],
    ['a guest cart', cart({ user_id: null, items: { a: { name: 'x', qty: 1, unit_price: 1 } } }), 'CARTS.USER_REQUIRED', 'user_id'],
    ['a zone no longer served', cart({ zone: 'EKB', items: { a: { name: 'x', qty: 1, unit_price: 1 } } }), 'CARTS.UNKNOWN_ZONE', 'zone'],
    ['a cart not active', cart({ status: 'ordered', items: { a: { name: 'x', qty: 1, unit_price: 1 } } }), 'CARTS.NOT_CHECKOUTABLE', 'status'],
  ])('refuses %s, naming the field', (_n, c, code, field) => {
    const products = new Map(['a', 'b', 'c', 'd'].map((k) => [k, p(k, 100)]));
    const r = priceCheckout(c, products, rules);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.refusals).toContainEqual(expect.objectContaining({ code, field }));
  });
});

describe('outbox relay decisions', () => {
  const intent = { bucket: 0, created_at: t0, checkout_id: 'k1', cart_id: 'c' };
  const at = (ms: number) => new Date(t0.getTime() + ms);
  const on = (id: string, status: Cart['status'] = 'checking_out') => cart({ status, checkout: { checkout_id: id, lines: [], total: 0 } });

  it('publishes an intent whose LWT applied (the cart is on its checkout), in any later status', () => {
    expect(decideIntent(intent, on('k1'), at(10), 60_000)).toBe('publish');
    expect(decideIntent(intent, on('k1', 'ordered'), at(10), 60_000)).toBe('publish');
  });

  it('waits while the LWT may be in flight, then discards an intent whose LWT lost or never ran', () => {
    expect(decideIntent(intent, cart(), at(59_999), 60_000)).toBe('wait');
    expect(decideIntent(intent, on('k2'), at(60_001), 60_000)).toBe('discard');
    expect(decideIntent(intent, on('k2', 'ordered'), at(60_001), 60_000)).toBe('discard');
    expect(decideIntent(intent, null, at(60_001), 60_000)).toBe('discard');
  });

  it('fences a cart still active after the grace before it discards: the LWT may yet land', () => {
    expect(decideIntent(intent, cart(), at(60_001), 60_000)).toBe('fence');
    expect(decideIntent(intent, cart({ status: 'abandoned' }), at(60_001), 60_000)).toBe('discard');
  });

  it('leaves fresh intents to the request that wrote them', () => {
    expect(dueForRelay(intent, at(4999), 5000)).toBe(false);
    expect(dueForRelay(intent, at(5000), 5000)).toBe(true);
  });

  it('spreads checkouts over the buckets, stably', () => {
    const ids = Array.from({ length: 800 }, (_, i) => `0000${i}-aaaa-4bbb-8ccc-${String(i).padStart(12, '0')}`);
    const counts = new Array<number>(8).fill(0);
    for (const id of ids) counts[bucketOf(id, 8)]! += 1;
    expect(Math.min(...counts)).toBeGreaterThan(50);
    expect(bucketOf(ids[0]!, 8)).toBe(bucketOf(ids[0]!, 8));
  });
});
