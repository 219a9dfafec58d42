/**
 * User activity (seed 003 `user_events`, ADR 0061), free of framework and driver code: what an
 * event is, its day partition and lifetime, how the services' own events become activity rows
 * with deterministic keys, and the keyset position a page continues from.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { EnvelopeOf } from '@mw/contracts';
import { assertUnreachable, formatMoney } from '@mw/platform';
import type { Cart, CartLine, CheckoutSnapshot, DroppedLine } from '../carts/cart';

export const ACTIVITY_TYPES = [
  'LOGIN',
  'CART_CREATED',
  'CART_ITEM_PUT',
  'CART_ITEM_REMOVED',
  'CHECKOUT_REQUESTED',
  'CART_MERGED',
  'ORDER_CREATED',
  'ORDER_CONFIRMED',
  'ORDER_CANCELLED',
  'ORDER_REJECTED',
  'ORDER_DELIVERY_STARTED',
  'ORDER_COMPLETED',
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/**
 * One row of `user_events`. Its key is (user_id, day of event_time) → (event_time, event_type,
 * event_id); every writer derives all three from its source (a message id, a cart revision, a
 * checkout id…), so writing the same fact twice overwrites one row.
 */
export interface ActivityEvent {
  /** The Keycloak subject (opaque text, never parsed as a uuid). */
  readonly user_id: string;
  readonly event_time: Date;
  readonly event_type: ActivityType;
  /** Tie-breaker and idempotency key within (event_time, event_type). */
  readonly event_id: string;
  /** The product, cart, order or session the event is about. */
  readonly resource_id: string | null;
  readonly details: Readonly<Record<string, unknown>>;
}

const DAY_MS = 86_400_000;

/** The partition day of a moment: its UTC calendar date, `YYYY-MM-DD`. */
export function dayOf(t: Date): string {
  return t.toISOString().slice(0, 10);
}

const startOfDay = (day: string): number => Date.parse(`${day}T00:00:00.000Z`);

/**
 * Seconds an event row still has to live: the retention counted from its event_time (not from the
 * write), so a redelivered or replayed event expires with the original. 0 means "already past its
 * retention: do not write it" — Cassandra reads `USING TTL 0` as "never expire". A producer clock
 * ahead of ours cannot stretch it beyond retention + 1 day.
 */
export function eventTtlSeconds(eventTime: Date, now: Date, retentionSeconds: number): number {
  const left = Math.ceil((eventTime.getTime() + retentionSeconds * 1000 - now.getTime()) / 1000);
  return Math.min(Math.max(0, left), retentionSeconds + DAY_MS / 1000);
}

/** Seconds the day-index row of `day` lives: until the last possible event of that day has expired. */
export function dayIndexTtlSeconds(day: string, now: Date, retentionSeconds: number): number {
  const left = Math.ceil((startOfDay(day) + DAY_MS + retentionSeconds * 1000 - now.getTime()) / 1000);
  return Math.min(Math.max(0, left), retentionSeconds + (2 * DAY_MS) / 1000);
}

/** Activity rows of carts' own HTTP operations (written after the cart write succeeded). */
export const cartActivity = {
  login(userId: string, sessionId: string, sid: string, startedAt: Date): ActivityEvent {
    return {
      user_id: userId,
      event_time: startedAt,
      event_type: 'LOGIN',
      event_id: sessionId,
      resource_id: sessionId,
      details: { sid },
    };
  },

  created(userId: string, cart: Cart): ActivityEvent {
    return {
      user_id: userId,
      event_time: cart.created_at,
      event_type: 'CART_CREATED',
      event_id: cart.cart_id,
      resource_id: cart.cart_id,
      details: { zone: cart.zone },
    };
  },

  /** `cart` is the cart as written: its revision makes each write one row (a retried PUT is a new write, so a new row). */
  itemPut(userId: string, cart: Cart, productId: string, line: CartLine): ActivityEvent {
    return {
      user_id: userId,
      event_time: cart.updated_at,
      event_type: 'CART_ITEM_PUT',
      event_id: revisionId(cart),
      resource_id: productId,
      details: {
        cart_id: cart.cart_id,
        name: line.name,
        qty: line.qty,
        unit_price: formatMoney(line.unit_price),
      },
    };
  },

  itemRemoved(userId: string, cart: Cart, productId: string): ActivityEvent {
    return {
      user_id: userId,
      event_time: cart.updated_at,
      event_type: 'CART_ITEM_REMOVED',
      event_id: revisionId(cart),
      resource_id: productId,
      details: { cart_id: cart.cart_id },
    };
  },

  /** Keyed by the checkout id at the time it was requested: a repeated checkout call rewrites the same row. */
  checkoutRequested(userId: string, cart: Cart, checkout: CheckoutSnapshot): ActivityEvent {
    return {
      user_id: userId,
      event_time: checkout.requested_at ? new Date(checkout.requested_at) : cart.updated_at,
      event_type: 'CHECKOUT_REQUESTED',
      event_id: checkout.checkout_id,
      resource_id: cart.cart_id,
      details: {
        checkout_id: checkout.checkout_id,
        zone: cart.zone,
        lines: checkout.lines.length,
        total: formatMoney(checkout.total),
        currency: 'RUB',
      },
    };
  },

  /** Keyed by the guest cart and the moment its lines reached the user's cart: every completer of a merge writes the same row. */
  merged(
    userId: string,
    m: {
      guest_cart_id: string;
      into_cart_id: string;
      zone: string;
      merged_at: string;
      dropped: readonly DroppedLine[];
    },
    guestSessionId: string | null,
  ): ActivityEvent {
    return {
      user_id: userId,
      event_time: new Date(m.merged_at),
      event_type: 'CART_MERGED',
      event_id: m.guest_cart_id,
      resource_id: m.into_cart_id,
      details: {
        guest_cart_id: m.guest_cart_id,
        guest_session_id: guestSessionId,
        zone: m.zone,
        dropped: m.dropped,
      },
    };
  },
} as const;

const revisionId = (cart: Cart): string => `${cart.cart_id}:${cart.revision ?? 0}`;

/**
 * The activity row of an order event of `orders.orders.v1`: time from the envelope's occurred_at,
 * id from the envelope's id, so a redelivered message overwrites its own row.
 */
export function orderActivity(e: EnvelopeOf<'orders.orders.v1'>): ActivityEvent {
  const base = { user_id: e.payload.user_id, event_time: new Date(e.occurred_at), event_id: e.id };
  const ref = (p: { order_id: string; cart_id: string; checkout_id: string }) => ({
    cart_id: p.cart_id,
    checkout_id: p.checkout_id,
  });
  switch (e.type) {
    case 'OrderCreated':
      return {
        ...base,
        event_type: 'ORDER_CREATED',
        resource_id: e.payload.order_id,
        details: {
          ...ref(e.payload),
          zone: e.payload.zone,
          total: formatMoney(e.payload.total),
          currency: e.payload.currency,
        },
      };
    case 'OrderConfirmed':
      return {
        ...base,
        event_type: 'ORDER_CONFIRMED',
        resource_id: e.payload.order_id,
        details: ref(e.payload),
      };
    case 'OrderCancelled':
      return {
        ...base,
        event_type: 'ORDER_CANCELLED',
        resource_id: e.payload.order_id,
        details: {
          ...ref(e.payload),
          reason: e.payload.reason,
          after_confirmation: e.payload.after_confirmation ?? false,
        },
      };
    case 'OrderRejected':
      return {
        ...base,
        event_type: 'ORDER_REJECTED',
        resource_id: e.payload.checkout_id,
        details: {
          cart_id: e.payload.cart_id,
          checkout_id: e.payload.checkout_id,
          code: e.payload.code,
          field: e.payload.field,
          message: e.payload.message,
        },
      };
    case 'OrderDeliveryStarted':
      return {
        ...base,
        event_type: 'ORDER_DELIVERY_STARTED',
        resource_id: e.payload.order_id,
        details: ref(e.payload),
      };
    case 'OrderCompleted':
      return {
        ...base,
        event_type: 'ORDER_COMPLETED',
        resource_id: e.payload.order_id,
        details: ref(e.payload),
      };
    default:
      return assertUnreachable(e);
  }
}

/**
 * A place in a user's activity, newest first: a page continues with the rows strictly after this
 * one in that order — older event_time, or the same event_time and a greater (event_type, event_id).
 */
export interface Position {
  readonly day: string;
  readonly time: number;
  readonly type: ActivityType;
  readonly id: string;
}

export function positionOf(e: ActivityEvent): Position {
  return { day: dayOf(e.event_time), time: e.event_time.getTime(), type: e.event_type, id: e.event_id };
}

/** Base64url of the cursor's JSON: what the document promises (`query.cursor` outside it is a 400). */
export const CURSOR_PATTERN = /^[A-Za-z0-9_-]{16,600}$/;

/** Binds a cursor to a user without printing the id: a page of one user never continues another's. */
const userTag = (userId: string): string =>
  createHash('sha256').update(`mw-activity-cursor:${userId}`).digest('base64url').slice(0, 16);

const CursorBody = z.strictObject({
  u: z.string().length(16),
  d: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  t: z.number().int().min(0).max(8.64e15),
  y: z.enum(ACTIVITY_TYPES),
  i: z.string().min(1).max(200),
});

export function encodeCursor(userId: string, p: Position): string {
  return Buffer.from(
    JSON.stringify({ u: userTag(userId), d: p.day, t: p.time, y: p.type, i: p.id }),
  ).toString('base64url');
}

export type CursorDecoding =
  | { readonly ok: true; readonly position: Position }
  | { readonly ok: false; readonly problem: 'malformed' | 'another-user' };

/** The position a cursor names, if this service issued it for this user. */
export function decodeCursor(cursor: string, userId: string): CursorDecoding {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, problem: 'malformed' };
  }
  const body = CursorBody.safeParse(json);
  if (!body.success || dayOf(new Date(body.data.t)) !== body.data.d)
    return { ok: false, problem: 'malformed' };
  if (body.data.u !== userTag(userId)) return { ok: false, problem: 'another-user' };
  return { ok: true, position: { day: body.data.d, time: body.data.t, type: body.data.y, id: body.data.i } };
}

export interface PageOptions {
  readonly limit: number;
  readonly type?: ActivityType | undefined;
  /** Rows read at most per page: with a type filter a page may come back short, with a cursor to go on. */
  readonly scanBudget: number;
}

/**
 * One page from rows in newest-first order: up to `limit` rows (of `type`, if given), and the
 * position to continue from — null only when the rows are exhausted. Reads one row beyond the page
 * to know there is more, and never more than `scanBudget` rows.
 */
export async function collectPage(
  rows: AsyncIterable<ActivityEvent>,
  opts: PageOptions,
): Promise<{ items: ActivityEvent[]; next: Position | null }> {
  const items: ActivityEvent[] = [];
  let scanned = 0;
  for await (const row of rows) {
    if (opts.type === undefined || row.event_type === opts.type) {
      const last = items[items.length - 1];
      if (last && items.length >= opts.limit) return { items, next: positionOf(last) };
      items.push(row);
    }
    if (++scanned >= opts.scanBudget) return { items, next: positionOf(row) };
  }
  return { items, next: null };
}

/**
 * Caps the rows of one (user, day) partition (ADR 0061: a bot's day stays a bounded partition).
 * Per instance: the first event of a (user, day) an instance sees runs `firstSight` once (write the
 * day index, count what the partition already holds); later events count in memory. N instances
 * keep a partition under N × the cap. Keys are forgotten oldest first beyond `maxKeys` (a forgotten
 * key is simply counted again).
 */
export class DailyQuota {
  private readonly used = new Map<string, Promise<{ count: number; refused: boolean }>>();

  constructor(
    private readonly max: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** 'ok': write it; 'refused-first': the cap was reached just now (say so once); 'refused': still over it. */
  async take(
    userId: string,
    day: string,
    firstSight: () => Promise<number>,
  ): Promise<'ok' | 'refused-first' | 'refused'> {
    const key = `${day}|${userId}`;
    let entry = this.used.get(key);
    if (!entry) {
      entry = firstSight().then((count) => ({ count, refused: false }));
      this.used.set(key, entry);
      entry.catch(() => this.used.delete(key));
      if (this.used.size > this.maxKeys) {
        const oldest = this.used.keys().next().value;
        if (oldest !== undefined) this.used.delete(oldest);
      }
    }
    const state = await entry;
    if (state.count < this.max) {
      state.count++;
      return 'ok';
    }
    if (state.refused) return 'refused';
    state.refused = true;
    return 'refused-first';
  }
}
