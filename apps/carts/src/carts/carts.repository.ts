import { Inject, Injectable } from '@nestjs/common';
import { Client, types } from 'cassandra-driver';
import { CASSANDRA } from '@mw/persistence';
import { CARTS_CONFIG } from '../config.token';
import type { CartsConfig } from '../config';
import { Cart, CartLine, CartStatus } from './cart';

const { Uuid, Long } = types;
type LineRow = { name: string; qty: number; unit_price: types.Long | number };

/** Cassandra I/O for carts. Writes that must not race with checkout are lightweight transactions. */
@Injectable()
export class CartsRepository {
  constructor(
    @Inject(CASSANDRA) private readonly db: Client,
    @Inject(CARTS_CONFIG) private readonly config: Readonly<CartsConfig>,
  ) {}

  private get ttl(): number {
    return this.config.CART_TTL_SECONDS;
  }

  async create(cart: Cart): Promise<void> {
    const id = Uuid.fromString(cart.cart_id);
    const queries = [
      {
        query: `INSERT INTO carts (cart_id, user_id, session_id, zone, status, items, created_at, updated_at) VALUES (?, ?, ?, ?, ?, {}, ?, ?) USING TTL ?`,
        params: [id, cart.user_id, cart.session_id ? Uuid.fromString(cart.session_id) : null, cart.zone, cart.status, cart.created_at, cart.updated_at, this.ttl],
      },
      ...this.lookupInserts(cart, cart.status),
    ];
    await this.db.batch(queries, { prepare: true, logged: true });
  }

  /** Cart reads before a decision use LOCAL_QUORUM (the client default), never ONE. */
  async get(cartId: string): Promise<Cart | null> {
    const rs = await this.db.execute(`SELECT * FROM carts WHERE cart_id = ?`, [Uuid.fromString(cartId)], { prepare: true });
    const row = rs.first();
    if (!row) return null;
    const items: Record<string, CartLine> = {};
    for (const [pid, l] of Object.entries((row.get('items') as Record<string, LineRow> | null) ?? {})) {
      items[pid] = { name: l.name, qty: l.qty, unit_price: typeof l.unit_price === 'number' ? l.unit_price : l.unit_price.toNumber() };
    }
    return {
      cart_id: String(row.get('cart_id')),
      user_id: (row.get('user_id') as string | null) ?? null,
      session_id: row.get('session_id') ? String(row.get('session_id')) : null,
      zone: row.get('zone') as string,
      status: row.get('status') as CartStatus,
      items,
      created_at: row.get('created_at') as Date,
      updated_at: row.get('updated_at') as Date,
    };
  }

  /** Puts one line (map entry) only while the cart is active; false when it is not. No read-before-write. */
  async putItem(cartId: string, productId: string, line: CartLine, now: Date): Promise<boolean> {
    const rs = await this.db.execute(
      `UPDATE carts USING TTL ? SET items[?] = ?, updated_at = ? WHERE cart_id = ? IF status = 'active'`,
      [this.ttl, productId, { name: line.name, qty: line.qty, unit_price: Long.fromNumber(line.unit_price) }, now, Uuid.fromString(cartId)],
      { prepare: true },
    );
    return rs.wasApplied();
  }

  async removeItem(cartId: string, productId: string, now: Date): Promise<boolean> {
    const rs = await this.db.execute(
      `UPDATE carts USING TTL ? SET items = items - ?, updated_at = ? WHERE cart_id = ? IF status = 'active'`,
      [this.ttl, [productId], now, Uuid.fromString(cartId)],
      { prepare: true },
    );
    return rs.wasApplied();
  }

  /** Compare-and-set of the status (LWT), then the lookup tables follow. False if the cart was not in `from`. */
  async transition(cart: Cart, from: CartStatus, to: CartStatus, now: Date): Promise<boolean> {
    const rs = await this.db.execute(
      `UPDATE carts USING TTL ? SET status = ?, updated_at = ? WHERE cart_id = ? IF status = ?`,
      [this.ttl, to, now, Uuid.fromString(cart.cart_id), from],
      { prepare: true },
    );
    if (!rs.wasApplied()) return false;
    await this.db.batch([...this.lookupDeletes(cart, from), ...this.lookupInserts(cart, to)], { prepare: true, logged: true });
    return true;
  }

  async listByUser(userId: string, status: CartStatus, limit: number): Promise<string[]> {
    const rs = await this.db.execute(
      `SELECT cart_id FROM carts_by_user_status WHERE user_id = ? AND status = ? LIMIT ?`,
      [userId, status, limit],
      { prepare: true },
    );
    return rs.rows.map((r) => String(r.get('cart_id')));
  }

  private lookupInserts(cart: Cart, status: CartStatus): { query: string; params: unknown[] }[] {
    const id = Uuid.fromString(cart.cart_id);
    const out: { query: string; params: unknown[] }[] = [];
    if (cart.user_id) {
      out.push({ query: `INSERT INTO carts_by_user_status (user_id, status, created_at, cart_id) VALUES (?, ?, ?, ?) USING TTL ?`, params: [cart.user_id, status, cart.created_at, id, this.ttl] });
    }
    if (cart.session_id) {
      out.push({
        query: `INSERT INTO carts_by_session_status (session_id, status, created_at, cart_id) VALUES (?, ?, ?, ?) USING TTL ?`,
        params: [Uuid.fromString(cart.session_id), status, cart.created_at, id, this.ttl],
      });
    }
    return out;
  }

  private lookupDeletes(cart: Cart, status: CartStatus): { query: string; params: unknown[] }[] {
    const id = Uuid.fromString(cart.cart_id);
    const out: { query: string; params: unknown[] }[] = [];
    if (cart.user_id) {
      out.push({ query: `DELETE FROM carts_by_user_status WHERE user_id = ? AND status = ? AND created_at = ? AND cart_id = ?`, params: [cart.user_id, status, cart.created_at, id] });
    }
    if (cart.session_id) {
      out.push({
        query: `DELETE FROM carts_by_session_status WHERE session_id = ? AND status = ? AND created_at = ? AND cart_id = ?`,
        params: [Uuid.fromString(cart.session_id), status, cart.created_at, id],
      });
    }
    return out;
  }
}
