/**
 * The demo's historic orders (about 300 over the last ~60 days) as specs for `historicOrder`:
 * deterministic for a given product list and day, so the demo always answers something and a
 * rerun writes the same ids (and therefore nothing new). Plain TypeScript.
 */
import type {
  CheckoutCancelReason,
  HistoricItem,
  HistoricOrderSpec,
  HistoricOutcome,
} from './historic-orders';

export interface DemoProduct {
  readonly id: string;
  readonly name: string;
  readonly category_id: string;
  /** Kopecks. */
  readonly price: number;
}

export interface DemoPlanInput {
  readonly products: readonly DemoProduct[];
  /** The demo customers (token subjects): the orders alternate between them, unevenly. */
  readonly customers: readonly string[];
  readonly zones: readonly string[];
  /** Orders are spread over the `days` before this instant, none later than an hour before it. */
  readonly now: Date;
  readonly count?: number;
  readonly days?: number;
  readonly seed?: number;
}

/** mulberry32: a small seeded generator, enough for demo data. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: () => number, weighted: readonly (readonly [T, number])[]): T => {
  const total = weighted.reduce((n, [, w]) => n + w, 0);
  let x = r() * total;
  for (const [v, w] of weighted) {
    if ((x -= w) < 0) return v;
  }
  return weighted[weighted.length - 1]![0];
};

const ZONE_WEIGHTS: Readonly<Record<string, number>> = { MSK: 5, SPB: 3, EKB: 2 };

/** Reasons of checkout cancellations, taken in turn so every reason shows up (rejections and declines most). */
const CHECKOUT_CANCELS: readonly CheckoutCancelReason[] = [
  'STOCK_REJECTED',
  'PAYMENT_DECLINED',
  'STOCK_DEADLINE_EXCEEDED',
  'STOCK_REJECTED',
  'PAYMENT_DECLINED',
  'PAYMENT_DEADLINE_EXCEEDED',
  'CANCELLED_BY_USER',
  'STOCK_REJECTED',
  'PAYMENT_DECLINED',
  'COMMIT_FAILED',
];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Sold orders are completed, being delivered or just confirmed depending on their age. */
function soldOutcome(ageMs: number): HistoricOutcome {
  if (ageMs < DAY) return { kind: 'confirmed' };
  if (ageMs < 3 * DAY) return { kind: 'delivering' };
  return { kind: 'completed' };
}

/**
 * Mostly sold (completed, delivering, confirmed by age), ~17% cancelled during checkout with
 * various reasons, ~4% cancelled by the customer after confirmation. Popular products sell more
 * (a skewed pick), MSK more than SPB more than EKB; 1–3 lines, mostly one unit each; placed
 * between 08:00 and 23:00 Moscow time.
 */
export function demoOrderPlan(input: DemoPlanInput): HistoricOrderSpec[] {
  const count = input.count ?? 300;
  const days = input.days ?? 60;
  const r = seededRandom(input.seed ?? 20261122);
  if (input.products.length === 0) throw new Error('demo orders need products');
  const products = [...input.products].sort((a, b) => (a.id < b.id ? -1 : 1));
  const zones = input.zones.map((z) => [z, ZONE_WEIGHTS[z] ?? 1] as const);
  const latest = input.now.getTime() - HOUR;
  const midnight = Math.floor(latest / DAY) * DAY;
  const specs: HistoricOrderSpec[] = [];
  let cancels = 0;
  for (let i = 0; i < count; i++) {
    const dayStart = midnight - Math.floor(r() * days) * DAY;
    // 05:00–20:00 UTC = 08:00–23:00 in Moscow
    const at = new Date(Math.min(latest, dayStart + 5 * HOUR + Math.floor(r() * 15 * HOUR)));
    const lines = pick(r, [
      [1, 6],
      [2, 3],
      [3, 1],
    ]);
    const items: HistoricItem[] = [];
    for (let l = 0; l < lines; l++) {
      // skewed towards the first products: a few best sellers, a long tail
      const p = products[Math.floor(products.length * r() ** 2.2)]!;
      if (items.some((x) => x.product_id === p.id)) continue;
      items.push({
        product_id: p.id,
        name: p.name,
        category_id: p.category_id,
        price: p.price,
        qty: r() < 0.8 ? 1 : 2,
      });
    }
    const kind = pick(r, [
      ['sold', 79],
      ['cancelled', 17],
      ['cancelled_after_confirmation', 4],
    ] as const);
    const age = input.now.getTime() - at.getTime();
    // a customer's cancellation comes hours after the confirmation: not for orders younger than that
    let outcome: HistoricOutcome;
    if (kind === 'cancelled')
      outcome = { kind: 'cancelled', reason: CHECKOUT_CANCELS[cancels++ % CHECKOUT_CANCELS.length]! };
    else if (kind === 'cancelled_after_confirmation' && age > 6 * HOUR)
      outcome = { kind: 'cancelled_after_confirmation' };
    else outcome = soldOutcome(age);
    const customer = r() < 0.6 ? 0 : Math.min(1, input.customers.length - 1);
    specs.push({
      seed: `demo-order:${i}`,
      userId: input.customers[customer]!,
      zone: pick(r, zones),
      at,
      items,
      outcome,
    });
  }
  return specs.sort((a, b) => a.at.getTime() - b.at.getTime());
}
