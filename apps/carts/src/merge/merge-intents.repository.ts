import { Inject, Injectable } from '@nestjs/common';
import { Client, types } from 'cassandra-driver';
import { CASSANDRA } from '@mw/persistence';
import { bucketOf } from '../checkout/checkout';
import { MERGE_INTENT_BUCKETS, MergeIntent } from './merge';

const { Uuid } = types;

/** The merge_intents table: a row per merge attempt, so the relay finds merges a crash left half-done. */
@Injectable()
export class MergeIntentsRepository {
  constructor(@Inject(CASSANDRA) private readonly db: Client) {}

  /** The intent of a merge of this guest cart started at this moment. */
  static intentOf(guestCartId: string, startedAt: Date): MergeIntent {
    return {
      bucket: bucketOf(guestCartId, MERGE_INTENT_BUCKETS),
      created_at: startedAt,
      guest_cart_id: guestCartId,
    };
  }

  async put(intent: MergeIntent): Promise<void> {
    await this.db.execute(
      `INSERT INTO merge_intents (bucket, created_at, guest_cart_id) VALUES (?, ?, ?)`,
      [intent.bucket, intent.created_at, Uuid.fromString(intent.guest_cart_id)],
      { prepare: true },
    );
  }

  async delete(intents: readonly MergeIntent[]): Promise<void> {
    if (intents.length === 0) return;
    await this.db.batch(
      intents.map((i) => ({
        query: `DELETE FROM merge_intents WHERE bucket = ? AND created_at = ? AND guest_cart_id = ?`,
        params: [i.bucket, i.created_at, Uuid.fromString(i.guest_cart_id)],
      })),
      { prepare: true, logged: false },
    );
  }

  /** Oldest intents of one bucket first, from `from` on when given (the relay's time bound). */
  async pending(bucket: number, limit: number, from: Date | null = null): Promise<MergeIntent[]> {
    const select = `SELECT bucket, created_at, guest_cart_id FROM merge_intents WHERE bucket = ?`;
    const rs = from
      ? await this.db.execute(`${select} AND created_at >= ? LIMIT ?`, [bucket, from, limit], { prepare: true })
      : await this.db.execute(`${select} LIMIT ?`, [bucket, limit], { prepare: true });
    return rs.rows.map((r) => ({
      bucket,
      created_at: r.get('created_at') as Date,
      guest_cart_id: String(r.get('guest_cart_id')),
    }));
  }

  async countAll(): Promise<number> {
    let n = 0;
    for (let b = 0; b < MERGE_INTENT_BUCKETS; b++) n += (await this.pending(b, 10_000)).length;
    return n;
  }
}
