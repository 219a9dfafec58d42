import { Inject, Injectable } from '@nestjs/common';
import { Client, types } from 'cassandra-driver';
import { CASSANDRA } from '@mw/persistence';
import type { CqlStatement } from '../cql';
import { CARTS_CONFIG } from '../config.token';
import type { CartsConfig } from '../config';
import { Cart, CartLine, CartStatus, CheckoutSnapshot, GuestMerge, listedUnder, touched, lookupMarginSeconds, lookupPartitionsOf, lookupWriteNeeded, MergeRecord } from './cart';

const { Uuid, Long } = types;
type LineRow = { name: string | null; qty: number; unit_price: types.Long | number | null };
type Statement = CqlStatement;
const STATUSES: readonly CartStatus[] = ['active', 'checking_out', 'ordered', 'abandoned', 'merging', 'merged'];
const COLUMNS = 'cart_id, user_id, session_id, zone, status, items, created_at, updated_at, expires_at, revision, checkout, checkout_keys, merge, merged_from';

/**
 * Cassandra I/O for carts. A cart is one row written whole, as a lightweight transaction on its
 * revision, with the cart's TTL on every cell (ADR 0060). Lookup rows by (owner, status) follow it.
 */
@Injectable()
export class CartsRepository {
  constructor(
    @Inject(CASSANDRA) private readonly db: Client,
    @Inject(CARTS_CONFIG) private readonly config: Readonly<CartsConfig>,
  ) {}

  private get ttl(): number {
    return this.config.CART_TTL_SECONDS;
  }

  /** Lookup rows outlive their cart by a margin (see `lookupWriteNeeded`); listings verify against the cart row. */
  private get lookupTtl(): number {
    return this.ttl + lookupMarginSeconds(this.ttl);
  }

  /** Inserts a new cart (IF NOT EXISTS) and its lookup rows. */
  async create(cart: Cart): Promise<void> {
    if (!(await this.insert(cart))) throw new Error(`cart ${cart.cart_id} already exists`);
  }

  /**
   * Inserts a cart unless a row with its id exists (LWT); false when one does. The merge creates
   * the user's cart under an id recorded beforehand on the guest cart, so two merges racing to
   * create it make exactly one.
   */
  async insert(cart: Cart): Promise<boolean> {
    await this.db.batch(this.lookupUpserts(cart), { prepare: true, logged: false });
    const rs = await this.db.execute(
      `INSERT INTO carts (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS USING TTL ?`,
      [...this.columns(cart), this.ttl],
      { prepare: true },
    );
    return rs.wasApplied();
  }

  /**
   * Reads a cart. `serial` reads through Paxos (LOCAL_SERIAL): it completes any LWT in flight, so
   * the answer is final — used by the outbox relay to decide whether a checkout LWT applied.
   */
  async get(cartId: string, opts: { serial?: boolean } = {}): Promise<Cart | null> {
    const rs = await this.db.execute(`SELECT * FROM carts WHERE cart_id = ?`, [Uuid.fromString(cartId)], {
      prepare: true,
      ...(opts.serial ? { consistency: types.consistencies.localSerial } : {}),
    });
    const row = rs.first();
    return row ? toCart(row) : null;
  }

  /**
   * Writes the whole cart if it is still at the revision and status it was read with (LWT).
   * The lookup row of the new status's partition is written first (unless the row written with
   * `read` still outlives `next`: a checkout), so a crash after the LWT never leaves a cart missing
   * from its status listing; the old partition's row is deleted after, when the partition changed.
   * False when the cart changed (or expired) in between: the caller reloads and decides again.
   * `after`: writes of other partitions the caller makes once the LWT applied (an activity row);
   * they go in the same unlogged batch as that delete — one request for both.
   */
  async save(next: Cart, read: Cart, hooks: { afterApplied?: () => Promise<void>; after?: readonly CqlStatement[] } = {}): Promise<boolean> {
    if (lookupWriteNeeded(read, next, this.ttl)) await this.db.batch(this.lookupUpserts(next), { prepare: true, logged: false });
    const rs = await this.db.execute(
      `UPDATE carts USING TTL ? SET user_id = ?, session_id = ?, zone = ?, status = ?, items = ?, created_at = ?, updated_at = ?,
         expires_at = ?, revision = ?, checkout = ?, checkout_keys = ?, merge = ?, merged_from = ?
       WHERE cart_id = ? IF revision = ? AND status = ?`,
      [this.ttl, ...this.columns(next).slice(1), Uuid.fromString(next.cart_id), read.revision, read.status],
      { prepare: true },
    );
    if (!rs.wasApplied()) return false;
    await hooks.afterApplied?.();
    const then = [...(listedUnder(read.status) !== listedUnder(next.status) ? this.lookupDeletes(next, listedUnder(read.status)) : []), ...(hooks.after ?? [])];
    if (then.length > 0) await this.db.batch(then, { prepare: true, logged: false });
    return true;
  }

  /**
   * Moves a cart to its next revision, its lines, status and owner unchanged (an LWT on the
   * revision and status read; the write touches it, like any other). Every LWT prepared from an
   * earlier read then fails: the outbox relays fence a cart before they drop an intent whose LWT
   * may still be on its way (ADR 0060). False when the cart changed in between.
   */
  async fence(read: Cart): Promise<boolean> {
    return this.save(touched(read, {}, new Date(), this.ttl), read);
  }

  /**
   * Ids of a user's carts in a status, newest first. Lookup rows are verified against the cart
   * rows: a row left behind by a crash (or a lost LWT) for a cart no longer in that status is skipped.
   */
  async listByUser(userId: string, status: CartStatus, limit: number): Promise<string[]> {
    return (await this.cartsOfUser(userId, status, limit)).map((c) => c.cart_id);
  }

  /** A user's carts in a status, newest first, verified against the cart rows. */
  async cartsOfUser(userId: string, status: CartStatus, limit: number): Promise<Cart[]> {
    const rows: types.Row[] = [];
    for (const partition of lookupPartitionsOf(status)) {
      const rs = await this.db.execute(
        `SELECT created_at, cart_id FROM carts_by_user_status WHERE user_id = ? AND status = ? LIMIT ?`,
        [userId, partition, Math.min(limit * 2, 200)],
        { prepare: true },
      );
      rows.push(...rs.rows);
    }
    const carts = await this.verified(rows, (c) => c.status === status && c.user_id === userId);
    return newestFirst(carts).slice(0, limit);
  }

  /**
   * The guest carts of a session in the given statuses, oldest first, verified against the cart
   * rows (a lookup row left behind by a crash, or a cart of another owner, is skipped).
   */
  async cartsOfSession(sessionId: string, statuses: readonly CartStatus[], limit: number): Promise<Cart[]> {
    const found = new Map<string, Cart>();
    for (const partition of new Set(statuses.flatMap(lookupPartitionsOf))) {
      const rs = await this.db.execute(
        `SELECT created_at, cart_id FROM carts_by_session_status WHERE session_id = ? AND status = ? LIMIT ?`,
        [Uuid.fromString(sessionId), partition, Math.min(limit * 2, 200)],
        { prepare: true },
      );
      for (const c of await this.verified(rs.rows, (cart) => statuses.includes(cart.status) && cart.user_id === null && cart.session_id === sessionId)) found.set(c.cart_id, c);
    }
    return [...found.values()].sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.cart_id.localeCompare(b.cart_id)).slice(0, limit);
  }

  /**
   * The carts lookup rows point at, kept when the cart row agrees: in the status and owner asked
   * for, and created at the row's `created_at` — a row written by a create that lost its
   * IF NOT EXISTS (two merges creating one cart) names the same id under another time. Each cart once.
   */
  private async verified(rows: readonly types.Row[], keep: (cart: Cart) => boolean): Promise<Cart[]> {
    const carts = await Promise.all(rows.map((r) => this.get(String(r.get('cart_id')))));
    const seen = new Set<string>();
    return carts.filter((c, i): c is Cart => {
      if (!c || seen.has(c.cart_id) || !keep(c) || c.created_at.getTime() !== (rows[i]?.get('created_at') as Date).getTime()) return false;
      seen.add(c.cart_id);
      return true;
    });
  }

  private columns(cart: Cart): unknown[] {
    const items: Record<string, { name: string; qty: number; unit_price: types.Long }> = {};
    for (const [pid, l] of Object.entries(cart.items)) items[pid] = { name: l.name, qty: l.qty, unit_price: Long.fromNumber(l.unit_price) };
    return [
      Uuid.fromString(cart.cart_id),
      cart.user_id,
      cart.session_id ? Uuid.fromString(cart.session_id) : null,
      cart.zone,
      cart.status,
      items,
      cart.created_at,
      cart.updated_at,
      cart.expires_at,
      cart.revision,
      cart.checkout ? JSON.stringify(cart.checkout) : null,
      JSON.stringify(cart.checkout_keys),
      cart.merge ? JSON.stringify(cart.merge) : null,
      JSON.stringify(cart.merged_from),
    ];
  }

  /**
   * Lookup rows carry `USING TIMESTAMP` derived from the cart's revision: a late delete of an old
   * status's row can never shadow a newer write of the same row (cart back in that status).
   */
  private lookupUpserts(cart: Cart): Statement[] {
    const id = Uuid.fromString(cart.cart_id);
    const ts = lookupTimestamp(cart);
    const out: Statement[] = [];
    if (cart.user_id) {
      out.push({ query: `INSERT INTO carts_by_user_status (user_id, status, created_at, cart_id) VALUES (?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?`, params: [cart.user_id, listedUnder(cart.status), cart.created_at, id, this.lookupTtl, ts] });
    }
    if (cart.session_id) {
      out.push({
        query: `INSERT INTO carts_by_session_status (session_id, status, created_at, cart_id) VALUES (?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?`,
        params: [Uuid.fromString(cart.session_id), listedUnder(cart.status), cart.created_at, id, this.lookupTtl, ts],
      });
    }
    return out;
  }

  private lookupDeletes(cart: Cart, status: CartStatus): Statement[] {
    const id = Uuid.fromString(cart.cart_id);
    const ts = lookupTimestamp(cart);
    const out: Statement[] = [];
    if (cart.user_id) {
      out.push({ query: `DELETE FROM carts_by_user_status USING TIMESTAMP ? WHERE user_id = ? AND status = ? AND created_at = ? AND cart_id = ?`, params: [ts, cart.user_id, status, cart.created_at, id] });
    }
    if (cart.session_id) {
      out.push({
        query: `DELETE FROM carts_by_session_status USING TIMESTAMP ? WHERE session_id = ? AND status = ? AND created_at = ? AND cart_id = ?`,
        params: [ts, Uuid.fromString(cart.session_id), status, cart.created_at, id],
      });
    }
    return out;
  }
}

/** Newest first (the lookup tables' clustering order), across the partitions a listing read. */
function newestFirst(carts: Cart[]): Cart[] {
  return carts.sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || a.cart_id.localeCompare(b.cart_id));
}

/** Creation time in µs + revision: monotonic in the revision of one cart. */
function lookupTimestamp(cart: Cart): types.Long {
  return Long.fromString((BigInt(cart.created_at.getTime()) * 1000n + BigInt(cart.revision ?? 0)).toString());
}

function toCart(row: types.Row): Cart {
  const items: Record<string, CartLine> = {};
  for (const [pid, l] of Object.entries((row.get('items') as Record<string, LineRow> | null) ?? {})) {
    const price = l.unit_price === null ? 0 : typeof l.unit_price === 'number' ? l.unit_price : l.unit_price.toNumber();
    items[pid] = { name: l.name ?? '', qty: l.qty, unit_price: price };
  }
  const status = row.get('status') as string;
  const updated = row.get('updated_at') as Date;
  const checkout = row.get('checkout') as string | null;
  const keys = row.get('checkout_keys') as string | null;
  const merge = row.get('merge') as string | null;
  const mergedFrom = row.get('merged_from') as string | null;
  return {
    cart_id: String(row.get('cart_id')),
    user_id: (row.get('user_id') as string | null) ?? null,
    session_id: row.get('session_id') ? String(row.get('session_id')) : null,
    zone: row.get('zone') as string,
    status: STATUSES.includes(status as CartStatus) ? (status as CartStatus) : 'abandoned',
    items,
    created_at: row.get('created_at') as Date,
    updated_at: updated,
    // Carts written before ADR 0060 have no expires_at: a far future keeps them readable until Cassandra drops them.
    expires_at: (row.get('expires_at') as Date | null) ?? new Date(8.64e15),
    revision: (row.get('revision') as number | null) ?? null,
    checkout: checkout ? (JSON.parse(checkout) as CheckoutSnapshot) : null,
    checkout_keys: keys ? (JSON.parse(keys) as [string, string][]) : [],
    merge: merge ? (JSON.parse(merge) as GuestMerge) : null,
    merged_from: mergedFrom ? (JSON.parse(mergedFrom) as MergeRecord[]) : [],
  };
}
