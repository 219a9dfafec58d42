import { type Cart, type CartLine, type GuestMerge, MAX_LINE_QTY, newCart, touched } from '../carts/cart';
import type { PricedProduct } from '../products/product';
import {
  chooseTarget,
  decideMergeIntent,
  dueForMergeRelay,
  guestStep,
  type MergeIntent,
  mergeLines,
  mergeRecord,
  targetStep,
  withRecord,
  MAX_MERGE_RECORDS,
} from './merge';

const t0 = new Date('2026-11-22T10:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const TTL = 600;
const line = (qty: number, name = 'client name', unit_price = 1): CartLine => ({ name, qty, unit_price });
const product = (id: string, price: number): PricedProduct => ({
  product_id: id,
  name: `catalog ${id}`,
  category_id: 'cat',
  price,
  version: 1,
});
const catalog = (...ps: PricedProduct[]) => new Map(ps.map((p) => [p.product_id, p]));

const guestCart = (over: Partial<Cart> = {}): Cart => ({
  ...newCart({ cart_id: 'g', user_id: null, session_id: 's', zone: 'MSK' }, t0, TTL),
  ...over,
});
const userCart = (id: string, over: Partial<Cart> = {}): Cart => ({
  ...newCart({ cart_id: id, user_id: 'alice', session_id: null, zone: 'MSK' }, t0, TTL),
  ...over,
});
const intent = (into: string, user = 'alice'): GuestMerge => ({
  into_cart_id: into,
  user_id: user,
  started_at: t0.toISOString(),
  merged_at: null,
  dropped: [],
});
const merging = (into = 'u', user = 'alice') => ({
  ...guestCart(),
  status: 'merging' as const,
  merge: intent(into, user),
});

describe('merge arithmetic', () => {
  it('sums quantities once, prices and names every merged line from the catalog, keeps the user’s other lines', () => {
    const mine = { a: line(2, 'old a', 5), b: line(1, 'old b', 7) };
    const guest = { a: line(3, 'guest a', 1), c: line(4, 'guest c', 1) };
    const { items, dropped } = mergeLines(
      mine,
      guest,
      catalog(product('a', 100_00), product('c', 250_00)),
      10,
    );
    expect(items).toEqual({
      a: { name: 'catalog a', qty: 5, unit_price: 100_00 },
      b: { name: 'old b', qty: 1, unit_price: 7 },
      c: { name: 'catalog c', qty: 4, unit_price: 250_00 },
    });
    expect(dropped).toEqual([]);
  });

  it(`caps a summed line at ${MAX_LINE_QTY}`, () => {
    expect(mergeLines({ a: line(60) }, { a: line(60) }, catalog(product('a', 1)), 10).items['a']?.qty).toBe(
      MAX_LINE_QTY,
    );
    expect(mergeLines({}, { a: line(MAX_LINE_QTY) }, catalog(product('a', 1)), 10).items['a']?.qty).toBe(
      MAX_LINE_QTY,
    );
  });

  it('drops products the catalog no longer sells, and new lines beyond the line limit (in product order); existing lines still sum', () => {
    const mine = { a: line(1), b: line(1) };
    const guest = { a: line(1), x: line(1), c: line(1), d: line(1) };
    const { items, dropped } = mergeLines(
      mine,
      guest,
      catalog(product('a', 1), product('b', 1), product('c', 1), product('d', 1)),
      3,
    );
    expect(Object.keys(items).sort()).toEqual(['a', 'b', 'c']);
    expect(items['a']?.qty).toBe(2);
    expect(dropped).toEqual([
      { product_id: 'd', reason: 'TOO_MANY_LINES' },
      { product_id: 'x', reason: 'PRODUCT_UNAVAILABLE' },
    ]);
  });

  it('an empty guest cart changes nothing', () => {
    expect(mergeLines({ a: line(1) }, {}, catalog(), 1)).toEqual({ items: { a: line(1) }, dropped: [] });
  });
});

describe('merge steps on the guest cart', () => {
  it('starts on an active guest cart, completes or answers its own merge, leaves other users’ alone', () => {
    expect(guestStep(guestCart(), 'alice', t0)).toBe('start');
    expect(guestStep(merging('u', 'alice'), 'alice', t0)).toBe('complete');
    expect(guestStep({ ...merging('u', 'alice'), status: 'merged' }, 'alice', t0)).toBe('done');
    expect(guestStep(merging('u', 'alice'), 'bob', t0)).toBe('taken');
    expect(guestStep({ ...merging('u', 'alice'), status: 'merged' }, 'bob', t0)).toBe('taken');
  });

  it('finds nothing to merge in a missing, expired or user cart', () => {
    expect(guestStep(null, 'alice', t0)).toBe('absent');
    expect(guestStep(guestCart(), 'alice', at(TTL * 1000))).toBe('absent');
    expect(guestStep(userCart('u'), 'alice', t0)).toBe('absent');
    expect(guestStep(guestCart({ status: 'abandoned' }), 'alice', t0)).toBe('absent');
    expect(guestStep({ ...guestCart(), status: 'merging' }, 'alice', t0)).toBe('absent'); // no recorded merge: not ours to guess
  });
});

describe('merge steps on the target cart', () => {
  const g = merging('u');
  it('creates a missing target under the recorded id, applies into an active one, never twice', () => {
    expect(targetStep(g, null, t0)).toBe('create');
    expect(targetStep(g, userCart('u'), t0)).toBe('apply');
    const applied = userCart('u', { merged_from: [mergeRecord('g', t0, [])] });
    expect(targetStep(g, applied, t0)).toBe('applied');
    // …even once that cart was checked out or ordered: the lines are in, only the guest cart is left to close
    expect(targetStep(g, { ...applied, status: 'ordered' }, t0)).toBe('applied');
  });

  it('waits while the target may become active again (checking out, expired but not yet dropped)', () => {
    expect(targetStep(g, userCart('u', { status: 'checking_out' }), t0)).toBe('wait');
    expect(targetStep(g, userCart('u'), at(TTL * 1000))).toBe('wait');
  });

  it('moves to another target only when this one can never take the lines', () => {
    for (const status of ['ordered', 'abandoned', 'merged'] as const)
      expect(targetStep(g, userCart('u', { status }), t0)).toBe('retarget');
    expect(targetStep(g, userCart('u', { user_id: 'bob' }), t0)).toBe('retarget');
    expect(targetStep(g, userCart('u', { zone: 'SPB' }), t0)).toBe('retarget');
  });

  it('picks the user’s newest active, unexpired cart in the guest cart’s zone', () => {
    const older = userCart('old');
    const newer = userCart('new', { created_at: at(1000) });
    const spb = userCart('spb', { zone: 'SPB', created_at: at(2000) });
    const ordered = userCart('ordered', { status: 'ordered', created_at: at(3000) });
    expect(chooseTarget([older, newer, spb, ordered], 'MSK', t0)).toBe('new');
    expect(chooseTarget([older, newer], 'MSK', t0, 'new')).toBe('old');
    expect(chooseTarget([spb, ordered], 'MSK', t0)).toBeNull();
    expect(chooseTarget([touched(older, {}, t0, TTL)], 'MSK', at(TTL * 1000))).toBeNull();
  });

  it('keeps the latest merge records', () => {
    let records: ReturnType<typeof withRecord> = [];
    for (let i = 0; i < MAX_MERGE_RECORDS + 3; i++)
      records = withRecord(records, mergeRecord(`g${i}`, t0, []));
    expect(records).toHaveLength(MAX_MERGE_RECORDS);
    expect(records.at(-1)?.guest_cart_id).toBe(`g${MAX_MERGE_RECORDS + 2}`);
  });
});

describe('merge relay decisions', () => {
  const row: MergeIntent = { bucket: 0, created_at: t0, guest_cart_id: 'g' };
  it('completes a merge stopped on this intent; forgets merged carts and other requests’ intents', () => {
    expect(decideMergeIntent(row, merging(), at(10), 1000)).toBe('complete');
    expect(decideMergeIntent(row, { ...merging(), status: 'merged' }, at(10), 1000)).toBe('forget');
    expect(
      decideMergeIntent(
        row,
        { ...merging(), merge: { ...intent('u'), started_at: at(5).toISOString() } },
        at(10),
        1000,
      ),
    ).toBe('forget');
  });

  it('waits while the LWT may be in flight, then forgets an intent whose LWT lost or never ran, fencing an active guest cart first', () => {
    expect(decideMergeIntent(row, guestCart(), at(999), 1000)).toBe('wait');
    expect(decideMergeIntent(row, guestCart(), at(1001), 1000)).toBe('fence');
    expect(decideMergeIntent(row, { ...guestCart(), status: 'abandoned' }, at(1001), 1000)).toBe('forget');
    expect(decideMergeIntent(row, null, at(1001), 1000)).toBe('forget');
  });

  it('leaves fresh intents to the request that wrote them', () => {
    expect(dueForMergeRelay(row, at(499), 500)).toBe(false);
    expect(dueForMergeRelay(row, at(500), 500)).toBe(true);
  });
});
