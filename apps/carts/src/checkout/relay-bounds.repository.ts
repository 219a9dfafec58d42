import { Inject, Injectable } from '@nestjs/common';
import { Client } from 'cassandra-driver';
import { CASSANDRA } from '@mw/persistence';
import type { BoundsStore } from './relay-pacing';

/** The relays' saved time bounds (`relay_bounds`): one partition per relay, one row per bucket. */
@Injectable()
export class RelayBoundsRepository implements BoundsStore {
  constructor(@Inject(CASSANDRA) private readonly db: Client) {}

  async load(relay: string): Promise<ReadonlyMap<number, Date>> {
    const rs = await this.db.execute(`SELECT bucket, bound FROM relay_bounds WHERE relay = ?`, [relay], {
      prepare: true,
    });
    return new Map(rs.rows.map((r) => [r.get('bucket') as number, r.get('bound') as Date]));
  }

  /** Every bucket's bound in one write: an UNLOGGED batch within the relay's one partition. */
  async save(relay: string, bounds: ReadonlyMap<number, Date>): Promise<void> {
    if (bounds.size === 0) return;
    await this.db.batch(
      [...bounds].map(([bucket, bound]) => ({
        query: `INSERT INTO relay_bounds (relay, bucket, bound) VALUES (?, ?, ?)`,
        params: [relay, bucket, bound],
      })),
      { prepare: true, logged: false },
    );
  }
}
