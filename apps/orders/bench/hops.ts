/**
 * Where a checkout's time goes, hop by hop (issue 31: what bounds the p99). Every saga message's
 * Kafka CreateTime is the moment its producer sent it — the carts relay, the orders relay, the
 * inventory relay — on the clock every process of the local stack shares, so the differences
 * between a checkout's messages are the time each service took from its input to its output
 * (consume, write with majority, relay on the change stream, produce), Kafka's own latency
 * included.
 */

/** The stages of a confirmed checkout's critical path, each from the previous stage's end. */
export const HOPS = {
  /** POST /checkout sent → CheckoutRequested produced: the HTTP call (auth, the cart's LWT, the intent) and the carts relay. */
  carts: 'CheckoutRequested',
  /** → ReserveStock produced: orders consumes the checkout, inserts the order, relays its command. */
  orders_place: 'ReserveStock',
  /** → StockReserved produced: inventory reserves in one commit and relays the answer. */
  inventory_reserve: 'StockReserved',
  /** → OrderConfirmed produced: the saga's transition, the payment (one sale at the PSP), the confirmation relayed. */
  orders_pay_confirm: 'OrderConfirmed',
} as const;
export type Hop = keyof typeof HOPS | 'to_observer';

export interface TimedCheckout {
  readonly cartId: string;
  readonly sentAt: number;
  readonly seenAt: number;
}

/** The p-th percentile of ascending values (NaN of none); the benchmark's one definition. */
export const pct = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const round = (n: number) => Number(n.toFixed(1));

export class HopClock {
  /** First CreateTime of each hop's message, by `cart:<id>` or `order:<id>` (whichever the message names). */
  private readonly stamps = new Map<string, Map<string, number>>();
  private readonly cartOfOrder = new Map<string, string>();
  private readonly types: ReadonlySet<string> = new Set(Object.values(HOPS));

  /** One message seen on a saga topic: its type, payload and Kafka timestamp (ms). */
  saw(type: string, payload: Record<string, unknown>, createTime: number): void {
    const cart = typeof payload['cart_id'] === 'string' ? payload['cart_id'] : undefined;
    const order = typeof payload['order_id'] === 'string' ? payload['order_id'] : undefined;
    if (cart && order) this.cartOfOrder.set(order, cart);
    if (!this.types.has(type) || !Number.isFinite(createTime)) return;
    const key = cart ? `cart:${cart}` : order ? `order:${order}` : undefined;
    if (!key) return;
    const seen = this.stamps.get(key) ?? new Map<string, number>();
    if (!seen.has(type)) seen.set(type, createTime); // a redelivered message keeps the first time
    this.stamps.set(key, seen);
  }

  /** Each hop's p50 / p99 over the checkouts every hop of which was seen, and how many those were. */
  breakdown(checkouts: readonly TimedCheckout[]): { checkouts: number } & Partial<Record<Hop, { p50: number; p99: number }>> {
    const orderOfCart = new Map([...this.cartOfOrder].map(([order, cart]) => [cart, order]));
    const per: Record<Hop, number[]> = { carts: [], orders_place: [], inventory_reserve: [], orders_pay_confirm: [], to_observer: [] };
    let timed = 0;
    for (const c of checkouts) {
      const order = orderOfCart.get(c.cartId);
      const at = (type: string) => this.stamps.get(`cart:${c.cartId}`)?.get(type) ?? (order ? this.stamps.get(`order:${order}`)?.get(type) : undefined);
      const times = Object.values(HOPS).map(at);
      if (times.some((t) => t === undefined)) continue;
      const ends = [...(times as number[]), c.seenAt];
      let from = c.sentAt;
      (Object.keys(per) as Hop[]).forEach((hop, i) => {
        per[hop].push(ends[i]! - from);
        from = ends[i]!;
      });
      timed++;
    }
    const out: { checkouts: number } & Partial<Record<Hop, { p50: number; p99: number }>> = { checkouts: timed };
    if (timed === 0) return out;
    for (const hop of Object.keys(per) as Hop[]) {
      const sorted = [...per[hop]].sort((a, b) => a - b);
      out[hop] = { p50: round(pct(sorted, 50)), p99: round(pct(sorted, 99)) };
    }
    return out;
  }
}
