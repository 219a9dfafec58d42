import { Inject, Injectable } from '@nestjs/common';
import { Client, types } from 'cassandra-driver';
import { CASSANDRA } from '@mw/persistence';
import type { CqlStatement } from '../cql';
import { Intent } from './checkout';

const { Uuid } = types;

export interface StoredIntent extends Intent {
  readonly key: string;
  /** The CheckoutRequested envelope exactly as it is published. */
  readonly envelope: string;
  /** W3C trace context of the checkout request (ADR 0014); absent with tracing off. */
  readonly traceparent?: string;
}

/** The checkout outbox table: intents written before the status LWT, found by bucket. */
@Injectable()
export class CheckoutOutboxRepository {
  constructor(@Inject(CASSANDRA) private readonly db: Client) {}

  async put(intent: StoredIntent): Promise<void> {
    await this.db.execute(
      `INSERT INTO checkout_outbox (bucket, created_at, checkout_id, cart_id, message_key, envelope, traceparent) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [intent.bucket, intent.created_at, Uuid.fromString(intent.checkout_id), Uuid.fromString(intent.cart_id), intent.key, intent.envelope, intent.traceparent ?? null],
      { prepare: true },
    );
  }

  /** Deletes intents; `alongside`: writes of other tables sent in the same unlogged batch (one request). */
  async delete(intents: readonly Intent[], alongside: readonly CqlStatement[] = []): Promise<void> {
    if (intents.length === 0 && alongside.length === 0) return;
    await this.db.batch(
      [
        ...intents.map((i) => ({ query: `DELETE FROM checkout_outbox WHERE bucket = ? AND created_at = ? AND checkout_id = ?`, params: [i.bucket, i.created_at, Uuid.fromString(i.checkout_id)] })),
        ...alongside,
      ],
      { prepare: true, logged: false },
    );
  }

  /**
   * Oldest intents of one bucket first, from `from` on when given (the relay's time bound: rows it
   * deleted lie below it, so their tombstones are not read again).
   */
  async pending(bucket: number, limit: number, from: Date | null = null): Promise<StoredIntent[]> {
    const rs = from
      ? await this.db.execute(`SELECT * FROM checkout_outbox WHERE bucket = ? AND created_at >= ? LIMIT ?`, [bucket, from, limit], { prepare: true })
      : await this.db.execute(`SELECT * FROM checkout_outbox WHERE bucket = ? LIMIT ?`, [bucket, limit], { prepare: true });
    return rs.rows.map((r) => ({
      bucket,
      created_at: r.get('created_at') as Date,
      checkout_id: String(r.get('checkout_id')),
      cart_id: String(r.get('cart_id')),
      key: r.get('message_key') as string,
      envelope: r.get('envelope') as string,
      ...(typeof r.get('traceparent') === 'string' ? { traceparent: r.get('traceparent') as string } : {}),
    }));
  }

  async countAll(buckets: number): Promise<number> {
    let n = 0;
    for (let b = 0; b < buckets; b++) n += (await this.pending(b, 10_000)).length;
    return n;
  }
}
