import { factsOf } from '../sales-facts';
import { DemoProduct, demoOrderPlan } from './demo-plan';
import { historicOrder } from './historic-orders';

const ALICE = 'a11ce000-5eed-4000-8000-000000000001';
const BOB = 'b0b00000-5eed-4000-8000-000000000002';
const products: DemoProduct[] = Array.from({ length: 40 }, (_, i) => ({
  id: `5eed${String(i).padStart(20, '0')}`,
  name: `Товар ${i}`,
  category_id: `5eed0000000000000000${String(i % 8).padStart(4, '0')}`,
  price: 99_000 + i * 150_000,
}));
const now = new Date('2026-11-22T08:00:00.000Z');
const plan = demoOrderPlan({ products, customers: [ALICE, BOB], zones: ['MSK', 'SPB', 'EKB'], now });

describe('demo orders', () => {
  it('about 300 orders over the last 60 days, none in the last hour, in every zone, for alice and bob', () => {
    expect(plan).toHaveLength(300);
    const times = plan.map((s) => s.at.getTime());
    expect(Math.max(...times)).toBeLessThanOrEqual(now.getTime() - 3_600_000);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(now.getTime() - 61 * 86_400_000);
    expect(new Set(plan.map((s) => s.at.toISOString().slice(0, 10))).size).toBeGreaterThan(50);
    const zones = plan.map((s) => s.zone);
    for (const z of ['MSK', 'SPB', 'EKB']) expect(zones.filter((x) => x === z).length).toBeGreaterThan(30);
    expect(new Set(plan.map((s) => s.userId))).toEqual(new Set([ALICE, BOB]));
    expect(new Set(plan.flatMap((s) => s.items.map((i) => i.category_id))).size).toBe(8);
  });

  it('mostly completed, some delivering and confirmed, cancellations with every reason, a few after confirmation', () => {
    const kinds = plan.map((s) =>
      s.outcome.kind === 'cancelled' ? `cancelled:${s.outcome.reason}` : s.outcome.kind,
    );
    const n = (k: string) => kinds.filter((x) => x === k).length;
    expect(n('completed')).toBeGreaterThan(180);
    expect(n('delivering')).toBeGreaterThan(0);
    expect(n('confirmed')).toBeGreaterThan(0);
    expect(n('cancelled_after_confirmation')).toBeGreaterThanOrEqual(3);
    for (const r of [
      'STOCK_REJECTED',
      'PAYMENT_DECLINED',
      'STOCK_DEADLINE_EXCEEDED',
      'PAYMENT_DEADLINE_EXCEEDED',
      'COMMIT_FAILED',
      'CANCELLED_BY_USER',
    ]) {
      expect(n(`cancelled:${r}`)).toBeGreaterThan(0);
    }
    expect(n('pending')).toBe(0); // a historic order has finished its checkout
  });

  it('every transition and event of a demo order happened before now', () => {
    for (const s of plan) {
      const { doc, messages } = historicOrder(s, 'orders.orders.v1');
      expect(doc.updated_at.getTime()).toBeLessThanOrEqual(now.getTime());
      for (const m of messages) expect(Date.parse(m.envelope.occurred_at)).toBeLessThanOrEqual(now.getTime());
      expect(factsOf(doc)).toContain('placed');
      expect(doc.items.length).toBeGreaterThan(0);
    }
  });

  it('is the same plan for the same products and day: ids repeat, so a rerun inserts nothing twice', () => {
    const again = demoOrderPlan({
      products: [...products].reverse(),
      customers: [ALICE, BOB],
      zones: ['MSK', 'SPB', 'EKB'],
      now,
    });
    expect(again).toEqual(plan);
    expect(new Set(plan.map((s) => s.seed)).size).toBe(300);
  });
});
