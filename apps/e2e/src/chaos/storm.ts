import { Carts } from '@mw/contracts';
import type { TestUser } from '@mw/testing';
import type { Identity, ServiceName, Stack } from '../stack';
import { Rng } from './rng';

/** A checkout carts answered 202 for: it must end as exactly one terminal order. */
export interface AcceptedCheckout {
  readonly checkout_id: string;
  readonly cart_id: string;
  readonly user_id: string;
  readonly zone: string;
  readonly lines: readonly { readonly product_id: string; readonly qty: number }[];
  readonly accepted_at: number;
}

export interface Product {
  readonly id: string;
  readonly hot: boolean;
  /** Units restocked per zone at the start. */
  readonly stock: number;
}

export interface StormStats {
  carts: number;
  attempted: number;
  accepted: number;
  /** Answers other than success, by `<status> <code>` (a cart line refused, a checkout refused). */
  refused: Record<string, number>;
  /** Requests repeated because an instance was down, paused or answered 5xx. */
  retried: number;
  /** Requests abandoned after every retry (the storm moves on). */
  abandoned: number;
  priceChanges: number;
  /** After-order actions during the storm, by `<action> <status> [code]` (cancel as the owner, delivery as the operator). */
  afterOrder: Record<string, number>;
}

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export const ZONES = ['MSK', 'SPB'] as const;

/**
 * HTTP to a service with failover: round robin over its instances, a request that cannot connect,
 * times out (a paused process) or gets a 5xx goes to the next instance after a short backoff, until
 * `giveUpMs`. The same request is repeated as is, so only idempotent requests (PUT, checkout with an
 * Idempotency-Key) are safe to lose an answer for.
 */
export class Http {
  private next = 0;
  retried = 0;

  constructor(private readonly stack: Stack) {}

  async call(
    service: ServiceName,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    giveUpMs = 90_000,
    as: Identity = this.stack.defaultIdentity(service),
  ): Promise<Answer> {
    const deadline = Date.now() + giveUpMs;
    const auth = await this.stack.authOf(as);
    let backoff = 200;
    let last = '';
    for (;;) {
      const instances = this.stack.instances(service);
      const target = instances[this.next++ % instances.length];
      if (!target) throw new Error(`no instance of ${service}`);
      try {
        const r = await fetch(`${target.url}${path}`, {
          method,
          headers: body === undefined ? { ...auth, ...headers } : { 'content-type': 'application/json', ...auth, ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(8000),
        });
        const text = await r.text();
        const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
        if (r.status < 500) return { status: r.status, body: parsed };
        last = `${r.status} ${String(parsed['code'] ?? '')}`;
      } catch (e) {
        last = (e as Error).message;
      }
      if (Date.now() > deadline) throw new Error(`${method} ${service}${path}: gave up after ${giveUpMs} ms (${last})`);
      this.retried++;
      await sleep(backoff);
      backoff = Math.min(2000, backoff * 2);
    }
  }
}

/**
 * The checkout storm: workers that each create a cart in a zone, put one to three lines in it
 * (hot products often, scarce stock), and check out with an Idempotency-Key, repeating a request
 * whose answer was lost until carts answers. A price changer edits cold products meanwhile so the
 * projector and carts' price table have work during the faults.
 */
export class Storm {
  readonly accepted: AcceptedCheckout[] = [];
  /** Every after-order action answered 2xx: the order must show it once the run settled (never rolled back). */
  readonly acknowledged: { order_id: string; action: 'cancel' | 'delivery' | 'completion'; status: number }[] = [];
  readonly stats: StormStats = { carts: 0, attempted: 0, accepted: 0, refused: {}, retried: 0, abandoned: 0, priceChanges: 0, afterOrder: {} };
  private readonly http: Http;

  constructor(
    private readonly stack: Stack,
    private readonly products: readonly Product[],
    private readonly rng: Rng,
    private readonly log: (line: string) => void,
  ) {
    this.http = new Http(stack);
  }

  /** Runs until `done()` says so (the storm lasts as long as the faults do). */
  async run(workers: number, done: () => boolean): Promise<void> {
    const loops = Array.from({ length: workers }, (_, i) => this.worker(i, this.rng.fork(), done));
    loops.push(this.priceChanger(this.rng.fork(), done), this.afterOrders(this.rng.fork(), done));
    await Promise.all(loops);
    this.stats.retried = this.http.retried;
  }

  private async worker(n: number, rng: Rng, done: () => boolean): Promise<void> {
    const hot = this.products.filter((p) => p.hot);
    const cold = this.products.filter((p) => !p.hot);
    let seq = 0;
    while (!done()) {
      seq++;
      try {
        const zone = rng.pick(ZONES);
        // a customer of this run (a real Keycloak user); one checkout in ten by the user whose payments decline
        const user = rng.chance(0.1) && this.stack.ruleUsers ? this.stack.ruleUsers.decline : rng.pick(this.stack.customers);
        const cart = await this.http.call('carts', 'POST', '/carts', { zone }, {}, 90_000, user);
        if (cart.status !== 201) {
          this.refuse('create', cart);
          continue;
        }
        this.stats.carts++;
        const cartId = String(cart.body['cart_id']);
        const lines: { product_id: string; qty: number }[] = [];
        const count = rng.int(1, 3);
        for (let i = 0; i < count; i++) {
          const product = rng.chance(0.5) ? rng.pick(hot) : rng.pick(cold);
          if (lines.some((l) => l.product_id === product.id)) continue;
          const qty = product.hot ? rng.int(1, 2) : rng.int(1, 3);
          const put = await this.http.call('carts', 'PUT', `/carts/${cartId}/items/${product.id}`, { qty }, {}, 90_000, user);
          if (put.status === 200) lines.push({ product_id: product.id, qty });
          else this.refuse('line', put);
        }
        if (lines.length === 0) continue;
        this.stats.attempted++;
        const key = `${this.stack.run}-w${n}-${seq}`;
        const answer = await this.http.call('carts', 'POST', `/carts/${cartId}/checkout`, undefined, { 'idempotency-key': key }, 90_000, user);
        // 202: accepted now; 200: the same key's checkout, accepted by an attempt whose answer was lost
        if (answer.status !== 202 && answer.status !== 200) {
          this.refuse('checkout', answer);
          continue;
        }
        this.stats.accepted++;
        this.accepted.push({ checkout_id: String(answer.body['checkout_id']), cart_id: cartId, user_id: user.id, zone, lines, accepted_at: Date.now() });
      } catch (e) {
        this.stats.abandoned++;
        this.log(`[storm] worker ${n}: ${(e as Error).message}`);
      }
    }
  }

  private async priceChanger(rng: Rng, done: () => boolean): Promise<void> {
    const cold = this.products.filter((p) => !p.hot);
    while (!done()) {
      await sleep(rng.int(2000, 5000));
      try {
        const product = rng.pick(cold);
        const price = `${rng.int(5_000, 150_000)}.00`;
        const r = await this.http.call('catalog', 'PATCH', `/products/${product.id}`, { price }, {}, 30_000);
        if (r.status === 200) this.stats.priceChanges++;
        await this.stack.relayCatalog();
      } catch (e) {
        this.log(`[storm] price change: ${(e as Error).message}`);
      }
    }
  }

  /**
   * Life after the order amid the faults: every few seconds an accepted checkout's order is either
   * cancelled by its owner (refund + ReturnStock once confirmed; released while still pending) or
   * handed to delivery by the operator, and later completed. Whatever the order's state, the answer
   * is one the API declares (202/200, or 409 when the state does not allow it); the invariants then
   * check from the databases that units came back and money was refunded exactly once.
   */
  private async afterOrders(rng: Rng, done: () => boolean): Promise<void> {
    const delivering: string[] = [];
    while (!done()) {
      await sleep(rng.int(2000, 5000));
      const candidates = this.accepted.filter((a) => Date.now() - a.accepted_at > 1500);
      if (candidates.length === 0) continue;
      const a = rng.pick(candidates);
      const orderId = orderIdOf(a.checkout_id);
      try {
        const roll = rng.int(1, 10);
        if (roll <= 5) {
          const owner = this.ownerOf(a.user_id);
          if (!owner) continue;
          this.afterOrder('cancel', orderId, await this.http.call('orders', 'POST', `/orders/${orderId}/cancel`, undefined, {}, 60_000, owner));
        } else if (roll <= 8 || delivering.length === 0) {
          const r = await this.http.call('orders', 'POST', `/orders/${orderId}/delivery`, undefined, {}, 60_000, 'otto');
          this.afterOrder('delivery', orderId, r);
          if (r.status === 200) delivering.push(orderId);
        } else {
          const id = delivering.splice(rng.int(0, delivering.length - 1), 1)[0];
          if (id) this.afterOrder('completion', id, await this.http.call('orders', 'POST', `/orders/${id}/completion`, undefined, {}, 60_000, 'otto'));
        }
      } catch (e) {
        this.stats.abandoned++;
        this.log(`[storm] after-order action on ${orderId}: ${(e as Error).message}`);
      }
    }
  }

  private ownerOf(userId: string): TestUser | undefined {
    return [...this.stack.customers, ...Object.values(this.stack.ruleUsers ?? {})].find((u) => u.id === userId);
  }

  private afterOrder(action: 'cancel' | 'delivery' | 'completion', orderId: string, a: Answer): void {
    if (a.status >= 200 && a.status < 300) this.acknowledged.push({ order_id: orderId, action, status: a.status });
    const key = `${action} ${a.status}${a.status >= 300 ? ` ${String(a.body['code'] ?? '')}` : ''}`;
    this.stats.afterOrder[key] = (this.stats.afterOrder[key] ?? 0) + 1;
  }

  private refuse(step: string, a: Answer): void {
    const key = `${step} ${a.status} ${String(a.body['code'] ?? '')}`.trim();
    this.stats.refused[key] = (this.stats.refused[key] ?? 0) + 1;
  }
}

/** The order of a checkout: orders derives its id from the checkout id (ADR 0050) by the carts contract's rule, so a redelivered checkout maps to the same order. */
export const orderIdOf = Carts.orderIdOfCheckout;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
