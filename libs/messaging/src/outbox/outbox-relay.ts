import { randomUUID } from 'node:crypto';
import { Collection, Db, Document, MongoServerError } from 'mongodb';
import type { Logger } from 'pino';
import { Gauge, Registry } from 'prom-client';
import { OutgoingMessage, TopicName } from '@mw/contracts';
import { KafkaPublisher } from '../publisher/publisher';
import { OUTBOX_FIELD, OutboxEntry } from './outbox';

export interface OutboxRelayOptions {
  readonly db: Db;
  /** Collections whose documents carry an `_outbox` array. */
  readonly collections: readonly string[];
  readonly publisher: KafkaPublisher;
  readonly logger: Logger;
  /** Lease name: one relay per service publishes at a time, so per-aggregate order holds across instances. */
  readonly name: string;
  readonly pollIntervalMs?: number;
  readonly batchSize?: number;
  readonly leaseMs?: number;
  readonly registry?: Registry;
}

interface DocWithOutbox extends Document {
  _id: unknown;
  [OUTBOX_FIELD]: OutboxEntry[];
}

/**
 * Publishes outbox entries and then removes them from their document. A crash between the
 * publish and the removal republishes the entries (at-least-once; consumers are idempotent);
 * a crash before the publish loses nothing because the entries are still in the document.
 */
export class OutboxRelay {
  private readonly owner = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly pending: Gauge | undefined;

  constructor(private readonly opts: OutboxRelayOptions) {
    this.pending = opts.registry
      ? new Gauge({ name: 'outbox_pending_documents', help: 'Documents with unpublished outbox entries (last poll)', registers: [opts.registry] })
      : undefined;
  }

  static async ensureIndexes(db: Db, collections: readonly string[]): Promise<void> {
    for (const name of collections) {
      await db.collection(name).createIndex({ [`${OUTBOX_FIELD}.created_at`]: 1 }, { name: 'outbox_pending' });
    }
    await db.collection('outbox_leases').createIndex({ expires_at: 1 }, { name: 'lease_expiry' });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Ask for a publish soon (after a local write), instead of waiting for the next poll. */
  nudge(): void {
    if (!this.stopped && !this.running) this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.opts.db.collection<{ _id: string; owner: string }>('outbox_leases').deleteOne({ _id: this.opts.name, owner: this.owner }).catch(() => undefined);
  }

  /** One pass over every collection; returns how many entries it published. */
  async drainOnce(): Promise<number> {
    if (!(await this.acquireLease())) return 0;
    let published = 0;
    let pendingDocs = 0;
    for (const name of this.opts.collections) {
      const coll = this.opts.db.collection<DocWithOutbox>(name);
      const docs = await coll
        // No sort: a sort on the multikey field makes mongod scan every key of the index
        // ([MinKey, MaxKey]) and examine every document; the range scan alone already returns
        // documents in the order of their oldest pending entry.
        // Majority-committed entries only: an entry an election could still roll back is never published.
        .find({ [`${OUTBOX_FIELD}.created_at`]: { $lte: new Date() } }, { projection: { [OUTBOX_FIELD]: 1 }, readConcern: { level: 'majority' } })
        .limit(this.opts.batchSize ?? 200)
        .toArray();
      pendingDocs += docs.length;
      published += await this.publishDocs(coll, docs);
    }
    this.pending?.set(pendingDocs);
    return published;
  }

  /**
   * Publishes the entries of a batch of documents in one produce request (each document's entries
   * in order, so per-aggregate order holds), then removes exactly those entries in one bulk write.
   */
  private async publishDocs(coll: Collection<DocWithOutbox>, docs: readonly DocWithOutbox[]): Promise<number> {
    const withEntries = docs.filter((d) => (d[OUTBOX_FIELD] ?? []).length > 0);
    if (withEntries.length === 0) return 0;
    // Entries were validated by createMessage when they were written.
    const messages = withEntries.flatMap((d) =>
      d[OUTBOX_FIELD].map((e) => ({ topic: e.topic as TopicName, key: e.key, envelope: JSON.parse(e.envelope) as unknown }) as OutgoingMessage),
    );
    await this.opts.publisher.publishAll(messages);
    await coll.bulkWrite(
      withEntries.map((d) => ({
        updateOne: {
          filter: { _id: d._id } as Document,
          update: { $pull: { [OUTBOX_FIELD]: { id: { $in: d[OUTBOX_FIELD].map((e) => e.id) } } } } as Document,
        },
      })),
      { ordered: false },
    );
    return messages.length;
  }

  private async acquireLease(): Promise<boolean> {
    const leases = this.opts.db.collection<{ _id: string; owner: string; expires_at: Date }>('outbox_leases');
    const now = new Date();
    try {
      const res = await leases.findOneAndUpdate(
        { _id: this.opts.name, $or: [{ owner: this.owner }, { expires_at: { $lt: now } }] },
        { $set: { owner: this.owner, expires_at: new Date(now.getTime() + (this.opts.leaseMs ?? 10_000)) } },
        { upsert: true, returnDocument: 'after' },
      );
      return res?.owner === this.owner;
    } catch (e) {
      if (e instanceof MongoServerError && e.code === 11000) return false; // another relay holds a live lease
      throw e;
    }
  }

  private schedule(delay: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.loop().finally(() => (this.running = undefined));
    }, delay);
  }

  private async loop(): Promise<void> {
    let next = this.opts.pollIntervalMs ?? 250;
    try {
      const n = await this.drainOnce();
      if (n > 0) next = 0; // more may be waiting
    } catch (e) {
      next = 1000;
      this.opts.logger.warn({ err: (e as Error).message, relay: this.opts.name }, 'outbox relay pass failed; will retry');
    }
    if (!this.stopped) this.schedule(next);
  }
}
