import { randomUUID } from 'node:crypto';
import { ChangeStream, ChangeStreamOptions, Collection, Db, Document, ResumeToken, Timestamp } from 'mongodb';
import type { Logger } from 'pino';
import { Counter, Gauge, Registry } from 'prom-client';
import { context } from '@opentelemetry/api';
import { untraced } from '@mw/platform';
import { KafkaPublisher } from '../publisher/publisher';
import { parentOf, sendTraced } from '../publisher/trace-headers';
import type { TransactionalSender } from '../publisher/transactional-sender';
import { maxEnvelopeBytes, RECORD_OVERHEAD_BYTES } from '../topics/topic-definitions';
import { OUTBOX_FIELD, OutboxEntry, ParkedMark } from './outbox';
import { ParkDecision, planBatch, PlannedDoc } from './outbox-batch';
import { acquireLease, LEASES_COLLECTION, releaseLease } from './outbox-lease';
import { AddedEntry, BlockedDoc, docKey, isTokenLost, loadProgress, outboxChange, RelayProgressMode, storeProgress } from './outbox-stream';

export interface OutboxRelayOptions {
  readonly db: Db;
  /** Collections whose documents carry an `_outbox` array. */
  readonly collections: readonly string[];
  /**
   * Shard-key fields per collection (ADR 0010): read with each pending document and added to the
   * filter of its updates, so on a sharded cluster mongos routes them to one shard instead of all.
   */
  readonly shardKeys?: Readonly<Record<string, readonly string[]>>;
  readonly publisher: KafkaPublisher;
  readonly logger: Logger;
  /** Lease name: one relay per service publishes at a time, so per-aggregate order holds across instances. */
  readonly name: string;
  readonly pollIntervalMs?: number;
  /**
   * Longest wait between passes while there is nothing to publish (default 8 × pollIntervalMs):
   * idle passes back off up to it; a publish or a nudge brings the poll back to pollIntervalMs.
   */
  readonly idlePollMaxMs?: number;
  /**
   * Gather window (ADR 0015 §1, default 0): a nudge, or a pass that published, schedules the next
   * pass this many ms later instead of at once, so the writes of that window go out in one pass —
   * one read, one Kafka transaction, one bulk removal — instead of a pass each. A pass that found a
   * full batch runs the next at once (a backlog is not slowed down).
   */
  readonly gatherMs?: number;
  /** How often the parked-documents gauge is recounted (default 30 s; a park recounts at once). */
  readonly parkedCountIntervalMs?: number;
  readonly batchSize?: number;
  /** Bytes of records per pass (default: what one record batch of a partition may hold). */
  readonly maxBatchBytes?: number;
  readonly leaseMs?: number;
  /** Broker-side bound of an open transaction of a paused relay (default 30 s). */
  readonly transactionTimeoutMs?: number;
  readonly registry?: Registry;
  /**
   * How the relay records what it sent (ADR 0015 §2). 'pull' (default): each sent entry is `$pull`ed
   * from its document, a write per document per pass. 'stream': the relay follows the collections'
   * change stream and stores its resume token once per pass in its lease document; entries stay in
   * their document (a bounded number per aggregate).
   */
  readonly progress?: RelayProgressMode;
  /** 'stream': the recovery scan starts this long before the stored progress time (default 5 min: writers' clocks, slow commits). */
  readonly recoveryMarginMs?: number;
  /** 'stream': an idle relay still stores the stream's advancing token this often (default 60 s), so it stays inside the oplog window. */
  readonly progressRefreshMs?: number;
  /** Called after Kafka acknowledged a pass and before its progress is stored (tests: a crash between the two). */
  readonly beforeProgressStore?: () => Promise<void> | void;
}

/** 'stream': the entries of one document a pass publishes, with their indexes in its `_outbox`. */
interface StreamDoc {
  readonly coll: string;
  readonly _id: unknown;
  readonly key: Readonly<Record<string, unknown>>;
  /** In index order. */
  items: AddedEntry[];
  /** The parked entry at this index was requeued: the document is read again from there. */
  requeueAt?: number;
}

interface DocWithOutbox extends Document {
  _id: unknown;
  [OUTBOX_FIELD]: OutboxEntry[];
}

/** Broker answers that no retry can change: the entry is parked, the others keep flowing. */
const DETERMINISTIC = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD', 'INVALID_TOPIC_EXCEPTION', 'TOPIC_AUTHORIZATION_FAILED', 'CORRUPT_MESSAGE', 'INVALID_REQUIRED_ACKS']);

/** Wait after the n-th consecutive idle pass (n ≥ 1): the poll interval, doubling up to the maximum. */
export function idleDelay(pollMs: number, maxMs: number, idlePasses: number): number {
  return Math.max(pollMs, Math.min(maxMs, pollMs * 2 ** Math.max(0, idlePasses - 1)));
}

/** Protocol error types anywhere in a kafkajs error's cause chain. */
export function kafkaErrorTypes(e: unknown): string[] {
  const types: string[] = [];
  for (let cur = e as { type?: unknown; cause?: unknown; originalError?: unknown } | undefined, n = 0; cur && n < 8; n++) {
    if (typeof cur.type === 'string') types.push(cur.type);
    cur = (cur.cause ?? cur.originalError) as typeof cur;
  }
  return types;
}
const isDeterministic = (e: unknown): boolean => kafkaErrorTypes(e).some((t) => DETERMINISTIC.has(t));

/**
 * Publishes outbox entries and then removes them from their document. A crash between the
 * publish and the removal republishes the entries (at-least-once; consumers are idempotent);
 * a crash before the publish loses nothing because the entries are still in the document.
 *
 * Fencing (ADR 0005): the lease (server time) elects one relay per (database, name); each owner
 * publishes through a Kafka transactional producer whose id is derived from the lease, registered
 * *before* it reads what to publish. A relay paused anywhere — before its send, or with records
 * sent but not committed — is fenced by the next owner's registration: its open transaction is
 * aborted (read_committed consumers never see it) and its later sends and commits are refused,
 * so it cannot publish an entry after a newer one for the same key.
 */
export class OutboxRelay {
  private readonly owner = randomUUID();
  private readonly sender: TransactionalSender;
  private senderEpoch: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** When the scheduled pass runs (local ms): a nudge never pushes a sooner pass later. */
  private timerDueAt = 0;
  /** The last pass read a full batch from some collection: more is waiting, the next pass runs at once. */
  private full = false;
  private running: Promise<void> | undefined;
  private stopped = true;
  /** A nudge arrived during a pass: run another one right after it (never dropped). */
  private again = false;
  private idlePasses = 0;
  /** Local time of the last successful lease renewal (0: not held); renewed again after half the lease. */
  private leaseRenewedAt = 0;
  private parkedCountedAt = 0;
  private readonly parkedByCollection = new Map<string, number>();
  private readonly pending: Gauge | undefined;
  private readonly parkedGauge: Gauge | undefined;
  private readonly parkedTotal: Counter | undefined;
  private readonly knownTopics = new Set<string>();
  private readonly progressMode: RelayProgressMode;
  /** 'stream': the open change stream, and the lease epoch it was opened under. */
  private stream: ChangeStream | undefined;
  private streamEpoch: number | undefined;
  /** 'stream': documents waiting behind a parked entry, as of the stream's position (stored with the token). */
  private blocked = new Map<string, BlockedDoc>();
  /** 'stream': entry id → index in its document, for the entries of the pass being published. */
  private readonly entryIndex = new Map<string, number>();
  /** 'stream': ids of the entries a pass sent (its documents are planned again without them). */
  private readonly passSent = new Set<string>();
  /** 'stream': time of the stored progress (the recovery scan's lower bound, minus the margin). */
  private progressAt: Date | undefined;
  private progressStoredAt = 0;
  private storedToken: ResumeToken | undefined;
  /** 'stream': progress must be stored after the next pass even without events (a recovery scan ran). */
  private storeDue = false;
  /** 'stream': the last pass read the stream (waiting there is the poll: the next pass follows at once). */
  private streamRead = false;

  constructor(private readonly opts: OutboxRelayOptions) {
    this.progressMode = opts.progress ?? 'pull';
    this.sender = opts.publisher.transactional(`outbox-relay.${opts.db.databaseName}.${opts.name}`, { transactionTimeoutMs: opts.transactionTimeoutMs });
    const registers = opts.registry ? [opts.registry] : undefined;
    this.pending = registers && new Gauge({ name: 'outbox_pending_documents', help: 'Documents with unpublished outbox entries (last poll)', registers });
    this.parkedGauge = registers && new Gauge({ name: 'outbox_parked_documents', help: 'Documents whose outbox waits behind a parked entry (ADR 0005)', registers });
    this.parkedTotal = registers && new Counter({ name: 'outbox_parked_entries_total', help: 'Outbox entries parked because the broker can never accept them', labelNames: ['code'], registers });
  }

  static async ensureIndexes(db: Db, collections: readonly string[]): Promise<void> {
    for (const name of collections) {
      await db.collection(name).createIndex({ [`${OUTBOX_FIELD}.created_at`]: 1 }, { name: 'outbox_pending' });
      await db.collection(name).createIndex({ [`${OUTBOX_FIELD}.parked.at`]: 1 }, { name: 'outbox_parked', sparse: true });
    }
    await db.collection(LEASES_COLLECTION).createIndex({ expires_at: 1 }, { name: 'lease_expiry' });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Ask for a publish soon (after a local write), instead of waiting for the next poll. */
  nudge(): void {
    if (this.stopped) return;
    this.idlePasses = 0;
    if (this.running) this.again = true;
    else if (this.timer === undefined || this.timerDueAt > Date.now() + this.gatherMs()) this.schedule(this.gatherMs());
  }

  private gatherMs(): number {
    return this.opts.gatherMs ?? 0;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.closeStream(); // ends a pass waiting on the stream
    await this.running;
    await this.sender.close();
    await releaseLease(this.opts.db, this.opts.name, this.owner).catch(() => undefined);
  }

  /** One pass over every collection; returns how many entries it published. */
  async drainOnce(): Promise<number> {
    if (this.progressMode === 'stream') return this.streamPass();
    if (!(await this.holdLease())) return 0;
    let published = 0;
    let pendingDocs = 0;
    let parkedDocs = 0;
    this.full = false;
    const recountParked = Date.now() - this.parkedCountedAt >= (this.opts.parkedCountIntervalMs ?? 30_000);
    for (const name of this.opts.collections) {
      if (!(await this.holdLease())) break; // a pass may outlast one lease period: renewed at half-life
      const coll = this.opts.db.collection<DocWithOutbox>(name);
      const docs = await coll
        // No sort: a sort on the multikey field makes mongod scan every key of the index
        // ([MinKey, MaxKey]) and examine every document; the range scan alone already returns
        // documents in the order of their oldest pending entry.
        // Majority-committed entries only: an entry an election could still roll back is never published.
        // A document with a parked entry waits (its later entries stay behind it).
        .find(
          { [`${OUTBOX_FIELD}.created_at`]: { $lte: new Date() }, [`${OUTBOX_FIELD}.parked`]: { $exists: false } },
          { projection: { [OUTBOX_FIELD]: 1, ...Object.fromEntries((this.opts.shardKeys?.[name] ?? []).map((f) => [f, 1])) }, readConcern: { level: 'majority' } },
        )
        .limit(this.opts.batchSize ?? 200)
        .toArray();
      pendingDocs += docs.length;
      if (docs.length >= (this.opts.batchSize ?? 200)) this.full = true;
      published += await this.publishDocs(coll, docs);
      if (this.parkedGauge && (recountParked || this.parkedByCollection.get(name) === undefined)) {
        this.parkedByCollection.set(name, await coll.countDocuments({ [`${OUTBOX_FIELD}.parked.at`]: { $exists: true } }));
      }
      parkedDocs += this.parkedByCollection.get(name) ?? 0;
    }
    if (recountParked) this.parkedCountedAt = Date.now();
    this.pending?.set(pendingDocs);
    this.parkedGauge?.set(parkedDocs);
    return published;
  }

  /** Takes or renews the lease; a new term registers a new transactional producer before anything is read. */
  private async holdLease(): Promise<boolean> {
    const leaseMs = this.opts.leaseMs ?? 10_000;
    // Renewed once it is half spent, not on every call: a lease read wrongly as still ours is harmless
    // (the next owner's producer registration fences this relay's sends), a write per pass is not free.
    if (this.sender.ready && this.senderEpoch !== undefined && Date.now() - this.leaseRenewedAt < leaseMs / 2) return true;
    const asked = Date.now();
    const lease = await acquireLease(this.opts.db, this.opts.name, this.owner, leaseMs);
    if (!lease.owned) {
      if (this.sender.ready) await this.sender.close();
      this.senderEpoch = undefined;
      this.leaseRenewedAt = 0;
      return false;
    }
    this.leaseRenewedAt = asked;
    if (!this.sender.ready || this.senderEpoch !== lease.epoch) {
      await this.sender.init();
      this.senderEpoch = lease.epoch;
    }
    return true;
  }

  /**
   * Publishes a batch of documents in one transaction (each document's entries in order, so
   * per-aggregate order holds), then removes exactly those entries. An entry the broker can never
   * accept is parked; when the broker refuses the batch for such a reason, documents are retried
   * one by one, and entry by entry, to find it. Anything else (broker down, fenced) fails the pass.
   */
  private async publishDocs(coll: Collection<DocWithOutbox>, docs: readonly DocWithOutbox[]): Promise<number> {
    const keyFields = this.opts.shardKeys?.[coll.collectionName] ?? [];
    const withEntries = docs
      .filter((d) => (d[OUTBOX_FIELD] ?? []).length > 0)
      .map((d) => ({ _id: d._id, key: Object.fromEntries(keyFields.map((f) => [f, d[f]])), entries: d[OUTBOX_FIELD] }));
    if (withEntries.length === 0) return 0;
    const topics = [...new Set(withEntries.flatMap((d) => d.entries.map((e) => e.topic)))];
    const unknown = topics.filter((t) => !this.knownTopics.has(t));
    const missing = new Set(unknown.length > 0 ? await this.sender.missingTopics(unknown) : []);
    for (const t of unknown) if (!missing.has(t)) this.knownTopics.add(t);
    const plan = planBatch(withEntries, {
      maxBatchBytes: this.opts.maxBatchBytes ?? maxEnvelopeBytes,
      maxRecordBytes: maxEnvelopeBytes + RECORD_OVERHEAD_BYTES,
      missingTopics: missing,
    });
    await this.park(coll, plan.park);
    try {
      return await this.sendAndRemove(coll, plan.send);
    } catch (e) {
      this.forgetTopicsIfUnknown(e);
      if (!isDeterministic(e) || plan.send.length === 0) throw e;
    }
    let published = 0;
    for (const doc of plan.send) published += await this.publishIsolated(coll, doc);
    return published;
  }

  /** One document after its batch was refused: all its entries, or entry by entry up to the one refused. */
  private async publishIsolated(coll: Collection<DocWithOutbox>, doc: PlannedDoc): Promise<number> {
    await this.ensureSender();
    try {
      return await this.sendAndRemove(coll, [doc]);
    } catch (e) {
      if (!isDeterministic(e)) throw e;
    }
    let published = 0;
    for (const [i, entry] of doc.entries.entries()) {
      const record = doc.records[i];
      if (!record) break;
      const one: PlannedDoc = { _id: doc._id, key: doc.key, entries: [entry], records: [record], bytes: 0 };
      await this.ensureSender();
      try {
        published += await this.sendAndRemove(coll, [one]);
      } catch (e) {
        if (!isDeterministic(e)) throw e;
        await this.park(coll, [{ _id: doc._id, key: doc.key, entry, code: 'MESSAGING.PUBLISH_REJECTED', reason: `${kafkaErrorTypes(e)[0] ?? 'rejected'}: ${(e as Error).message}` }]);
        break; // the later entries of this document wait behind the parked one
      }
    }
    return published;
  }

  /** The sender drops its producer after a failed transaction; a new one is registered only while the lease is ours. */
  private async ensureSender(): Promise<void> {
    if (this.sender.ready) return;
    if (!(await this.holdLease())) throw new Error(`outbox relay ${this.opts.name} lost its lease`);
    if (!this.sender.ready) await this.sender.init();
  }

  private async sendAndRemove(coll: Collection<DocWithOutbox>, docs: readonly PlannedDoc[]): Promise<number> {
    if (docs.length === 0) return 0;
    // each record under a producer span continuing the trace of the transition that wrote it (ADR 0014)
    const active = context.active();
    const outbox = `${this.opts.db.databaseName}.${coll.collectionName}`;
    const records = docs.flatMap((d) =>
      d.records.map((r, i) => ({ ...r, headers: { ...r.headers }, parent: parentOf(d.entries[i]?.traceparent, active), attributes: { 'mw.outbox': outbox, 'mw.outbox.entry_id': d.entries[i]?.id ?? '' } })),
    );
    await sendTraced(records, () => this.sender.send(records.map(({ parent: _, attributes: _a, ...r }) => r)));
    for (const d of docs) for (const e of d.entries) this.passSent.add(e.id);
    // 'stream': the entries stay; the pass's progress is stored once, after every send of the pass.
    if (this.progressMode === 'stream') return docs.reduce((n, d) => n + d.entries.length, 0);
    // Committed: these entries are published whoever owns the lease now, so removing them is right.
    await coll.bulkWrite(
      docs.map((d) => ({
        updateOne: {
          filter: { ...d.key, _id: d._id } as Document,
          update: { $pull: { [OUTBOX_FIELD]: { id: { $in: d.entries.map((e) => e.id) } } } } as Document,
        },
      })),
      { ordered: false },
    );
    return docs.reduce((n, d) => n + d.entries.length, 0);
  }

  private async park(coll: Collection<DocWithOutbox>, decisions: readonly ParkDecision[]): Promise<void> {
    if (decisions.length === 0) return;
    const at = new Date();
    await coll.bulkWrite(
      decisions.map((p) => ({
        updateOne: {
          filter: { ...p.key, _id: p._id, [`${OUTBOX_FIELD}.id`]: p.entry.id } as Document,
          update: { $set: { [`${OUTBOX_FIELD}.$.parked`]: { code: p.code, reason: p.reason, at } satisfies ParkedMark } } as Document,
        },
      })),
      { ordered: false },
    );
    this.parkedByCollection.delete(coll.collectionName); // recounted in this pass
    for (const p of decisions) {
      const index = this.progressMode === 'stream' ? this.entryIndex.get(p.entry.id) : undefined;
      if (index !== undefined) this.block(coll.collectionName, p._id, index);
      this.parkedTotal?.inc({ code: p.code });
      this.opts.logger.error(
        { relay: this.opts.name, collection: coll.collectionName, doc_id: String(p._id), entry_id: p.entry.id, topic: p.entry.topic, code: p.code, reason: p.reason },
        'outbox entry parked: the broker can never accept it; this document waits, the others keep publishing (requeue with npm run outbox:parked)',
      );
    }
  }

  // ---- 'stream' progress (ADR 0015 §2) ----------------------------------------------------------

  /**
   * One pass in 'stream' mode: reads what the change stream has (waiting up to the idle poll for
   * the first event), publishes the entries those changes added — per document in index order,
   * through the same plan, parking and transactional sender as 'pull' — and then, after Kafka
   * acknowledged every send of the pass, stores the stream's resume token with ONE write to the
   * lease document, filtered by owner and epoch. A crash between the two resends the pass from
   * the previous token (at least once, as with 'pull'). No write touches the documents themselves
   * (except a park mark, which is rare).
   */
  private async streamPass(): Promise<number> {
    this.streamRead = false;
    if (!(await this.holdLease())) {
      await this.closeStream();
      return 0;
    }
    try {
      let published = 0;
      // a new lease term (or a failed pass) reopens from the stored token: a replay holds what was held then
      if (!this.stream || this.streamEpoch !== this.senderEpoch) published += await this.openStream();
      const stream = this.stream;
      if (!stream) return published;
      const events: Document[] = [];
      const max = this.opts.batchSize ?? 200;
      try {
        const first = await stream.tryNext(); // the poll: returns at once when a change is there
        if (first) events.push(first);
        while (first && events.length < max && stream.bufferedCount() > 0) {
          const e = await stream.tryNext();
          if (!e) break;
          events.push(e);
        }
      } catch (e) {
        if (!isTokenLost(e)) throw e;
        this.opts.logger.warn({ relay: this.opts.name, err: (e as Error).message }, 'outbox relay: the stored resume token is gone (oplog window passed, or invalid); recovery scan');
        return published + (await this.recover(this.progressAt));
      }
      this.streamRead = true;
      const readAt = new Date();
      const token = stream.resumeToken;
      published += await this.publishChanges(events);
      const refresh = token !== undefined && token !== this.storedToken && Date.now() - this.progressStoredAt >= (this.opts.progressRefreshMs ?? 60_000);
      if (token !== undefined && (events.length > 0 || this.storeDue || refresh)) await this.saveProgress(token, readAt);
      await this.recountParkedGauge();
      return published;
    } catch (e) {
      await this.closeStream(); // the next pass resumes from the stored progress
      throw e;
    }
  }

  /** After the pass's sends were acknowledged: its token and time, and the blocked documents, in one write. */
  private async saveProgress(token: ResumeToken, at: Date): Promise<void> {
    await this.opts.beforeProgressStore?.();
    const stored = await storeProgress(this.opts.db, this.opts.name, this.owner, this.senderEpoch ?? -1, { token, at, blocked: [...this.blocked.values()] });
    if (!stored) throw new Error(`outbox relay ${this.opts.name} lost its lease before storing its progress`);
    this.storedToken = token;
    this.progressAt = at;
    this.progressStoredAt = Date.now();
    this.storeDue = false;
  }

  /** Resumes after the stored token (restoring the blocked documents as of it), or recovers without one. */
  private async openStream(): Promise<number> {
    await this.closeStream();
    const progress = await loadProgress(this.opts.db, this.opts.name);
    if (!progress) return this.recover(undefined);
    this.blocked = new Map(progress.blocked.map((b) => [docKey(b.c, b.id), b]));
    this.progressAt = progress.at;
    this.storedToken = progress.token;
    this.stream = this.watch({ resumeAfter: progress.token });
    this.streamEpoch = this.senderEpoch;
    return 0;
  }

  /**
   * Recovery scan, when there is no usable token (none stored, or the oplog no longer holds it):
   * publishes every entry created at or after (the stored progress time − the margin), everything
   * when there is no progress at all, then follows the stream from an operation time taken BEFORE
   * the scan. That time is a majority read's: every write committed up to it is in the scan's
   * majority snapshot, every later one is in the stream — nothing falls between (a write seen by
   * both is published twice: at least once). Documents with a parked entry are found first and
   * blocked at it, so the scan and the stream hold their later entries.
   */
  private async recover(progressAt: Date | undefined): Promise<number> {
    await this.closeStream();
    const [first = LEASES_COLLECTION] = this.opts.collections;
    const { operationTime } = (await this.opts.db.command({ find: first, filter: { _id: null }, limit: 1, readConcern: { level: 'majority' } })) as { operationTime: Timestamp };
    const since = progressAt ? new Date(progressAt.getTime() - (this.opts.recoveryMarginMs ?? 5 * 60_000)) : new Date(0);
    this.blocked = new Map();
    const batch = this.opts.batchSize ?? 200;
    let published = 0;
    for (const name of this.opts.collections) {
      const coll = this.opts.db.collection<DocWithOutbox>(name);
      const parked = coll.find({ [`${OUTBOX_FIELD}.parked.at`]: { $exists: true } }, { projection: { [`${OUTBOX_FIELD}.id`]: 1, [`${OUTBOX_FIELD}.parked`]: 1 }, readConcern: { level: 'majority' } });
      for await (const d of parked) {
        const i = (d[OUTBOX_FIELD] ?? []).findIndex((e) => e.parked !== undefined);
        if (i >= 0) this.block(name, d._id, i);
      }
      const keyFields = this.opts.shardKeys?.[name] ?? [];
      const cursor = coll.find(
        { [`${OUTBOX_FIELD}.created_at`]: { $gte: since } },
        { projection: { [OUTBOX_FIELD]: 1, ...Object.fromEntries(keyFields.map((f) => [f, 1])) }, readConcern: { level: 'majority' }, batchSize: batch },
      );
      let page: StreamDoc[] = [];
      for await (const d of cursor) {
        const doc: StreamDoc = { coll: name, _id: d._id, key: Object.fromEntries(keyFields.map((f) => [f, d[f]])), items: [] };
        const blockedAt = this.blocked.get(docKey(name, d._id))?.i ?? Infinity;
        (d[OUTBOX_FIELD] ?? []).forEach((entry, index) => {
          if (index < blockedAt && entry.created_at >= since) doc.items.push({ index, entry });
        });
        page.push(doc);
        if (page.length >= batch) {
          published += await this.publishStreamDocs(name, page);
          page = [];
          if (!(await this.holdLease())) throw new Error(`outbox relay ${this.opts.name} lost its lease during its recovery scan`);
        }
      }
      published += await this.publishStreamDocs(name, page);
    }
    this.stream = this.watch({ startAtOperationTime: operationTime });
    this.streamEpoch = this.senderEpoch;
    this.storeDue = true; // until a token is stored, a crash scans again
    // a first start (no progress) is routine; a lost token was already warned about
    this.opts.logger.info({ relay: this.opts.name, since, published }, 'outbox relay: recovery scan done; following the change stream');
    return published;
  }

  private watch(from: Pick<ChangeStreamOptions, 'resumeAfter' | 'startAtOperationTime'>): ChangeStream {
    const poll = this.opts.pollIntervalMs ?? 250;
    const outboxField = `^${OUTBOX_FIELD}(\\.\\d+)?$`;
    return this.opts.db.watch(
      [
        {
          $match: {
            'ns.coll': { $in: [...this.opts.collections] },
            $or: [
              { operationType: { $in: ['insert', 'replace'] } },
              // an update that wrote entries (a park mark, `_outbox.<n>.parked`, is not one), or removed a park mark
              {
                operationType: 'update',
                $expr: {
                  $gt: [{ $size: { $filter: { input: { $objectToArray: { $ifNull: ['$updateDescription.updatedFields', {}] } }, cond: { $regexMatch: { input: '$$this.k', regex: outboxField } } } } }, 0],
                },
              },
              { operationType: 'update', 'updateDescription.removedFields': { $regex: `^${OUTBOX_FIELD}\\.\\d+\\.parked$` } },
            ],
          },
        },
        { $project: { operationType: 1, ns: 1, documentKey: 1, [`fullDocument.${OUTBOX_FIELD}`]: 1, updateDescription: 1 } },
      ],
      // change streams return majority-committed changes only, in commit order (a replica set's oplog order)
      // a pass waits there at most a quarter of the lease, so the lease is renewed in time
      { ...from, maxAwaitTimeMS: Math.min(this.opts.idlePollMaxMs ?? poll * 8, (this.opts.leaseMs ?? 10_000) / 4), batchSize: this.opts.batchSize ?? 200 },
    );
  }

  private async closeStream(): Promise<void> {
    const s = this.stream;
    this.stream = undefined;
    this.streamEpoch = undefined;
    await s?.close().catch(() => undefined);
  }

  /** The entries the pass's changes added, per document in index order, and the requeued documents read again. */
  private async publishChanges(events: readonly Document[]): Promise<number> {
    const docs = new Map<string, StreamDoc>();
    for (const ev of events) {
      const name = (ev['ns'] as { coll?: string } | undefined)?.coll;
      if (!name || !this.opts.collections.includes(name)) continue;
      const documentKey = ev['documentKey'] as Document;
      const k = docKey(name, documentKey['_id']);
      let doc = docs.get(k);
      if (!doc) {
        // the documentKey carries the shard key on a sharded collection (ADR 0010)
        const key = Object.fromEntries((this.opts.shardKeys?.[name] ?? []).map((f) => [f, documentKey[f]]));
        doc = { coll: name, _id: documentKey['_id'], key, items: [] };
        docs.set(k, doc);
      }
      const change = outboxChange(ev);
      if (change.unparkedAt !== undefined && change.unparkedAt === this.blocked.get(k)?.i) doc.requeueAt = change.unparkedAt;
      for (const { index, entry } of change.added) {
        const blockedAt = this.blocked.get(k)?.i;
        // Entries are never removed in this mode, so indexes never move: an element reported at the
        // index of the parked entry, without its mark, is that entry requeued (an addition lands after it).
        if (blockedAt === index && entry.parked === undefined) doc.requeueAt = index;
        else if (entry.parked !== undefined) {
          if (blockedAt === undefined || index < blockedAt) this.block(name, doc._id, index);
        } else if ((blockedAt === undefined || index < blockedAt) && (doc.requeueAt === undefined || index < doc.requeueAt)) doc.items.push({ index, entry });
      }
    }
    for (const doc of docs.values()) if (doc.requeueAt !== undefined) await this.readRequeued(doc, doc.requeueAt);
    this.pending?.set(docs.size);
    let published = 0;
    for (const name of this.opts.collections) {
      const mine = [...docs.values()].filter((d) => d.coll === name);
      if (mine.length > 0) published += await this.publishStreamDocs(name, mine);
    }
    return published;
  }

  /** A requeued document: its entries from the once-parked one on, as the document holds them now. */
  private async readRequeued(doc: StreamDoc, from: number): Promise<void> {
    this.blocked.delete(docKey(doc.coll, doc._id));
    doc.items = doc.items.filter((x) => x.index < from);
    const now = await this.opts.db
      .collection<DocWithOutbox>(doc.coll)
      .findOne({ ...doc.key, _id: doc._id } as Document, { projection: { [OUTBOX_FIELD]: 1 }, readConcern: { level: 'majority' } });
    for (const [index, entry] of (now?.[OUTBOX_FIELD] ?? []).entries()) {
      if (index < from) continue;
      if (entry.parked !== undefined) {
        this.block(doc.coll, doc._id, index);
        break;
      }
      doc.items.push({ index, entry });
    }
  }

  private block(coll: string, id: unknown, index: number): void {
    const k = docKey(coll, id);
    const at = this.blocked.get(k);
    if (at === undefined || index < at.i) this.blocked.set(k, { c: coll, id, i: index });
  }

  /**
   * Publishes the documents' entries, as many transactions as the batch limits need: each round
   * plans what is left (a document cut by the byte limit continues in the next), parks what can
   * never be published and drops what waits behind a parked entry.
   */
  private async publishStreamDocs(name: string, docs: readonly StreamDoc[]): Promise<number> {
    const coll = this.opts.db.collection<DocWithOutbox>(name);
    const count = (ds: readonly StreamDoc[]): number => ds.reduce((n, d) => n + d.items.length, 0);
    let left = docs.filter((d) => d.items.length > 0);
    let published = 0;
    while (left.length > 0) {
      this.entryIndex.clear();
      for (const d of left) for (const x of d.items) this.entryIndex.set(x.entry.id, x.index);
      this.passSent.clear();
      const before = count(left);
      published += await this.publishDocs(coll, left.map((d) => ({ ...d.key, _id: d._id, [OUTBOX_FIELD]: d.items.map((x) => x.entry) }) as DocWithOutbox));
      left = left
        .map((d) => {
          const blockedAt = this.blocked.get(docKey(name, d._id))?.i ?? Infinity;
          return { ...d, items: d.items.filter((x) => !this.passSent.has(x.entry.id) && x.index < blockedAt) };
        })
        .filter((d) => d.items.length > 0);
      if (count(left) >= before) throw new Error(`outbox relay ${this.opts.name}: a publishing round made no progress`);
    }
    return published;
  }

  private async recountParkedGauge(): Promise<void> {
    if (!this.parkedGauge) return;
    const recount = Date.now() - this.parkedCountedAt >= (this.opts.parkedCountIntervalMs ?? 30_000);
    let parked = 0;
    for (const name of this.opts.collections) {
      if (recount || this.parkedByCollection.get(name) === undefined) {
        this.parkedByCollection.set(name, await this.opts.db.collection(name).countDocuments({ [`${OUTBOX_FIELD}.parked.at`]: { $exists: true } }));
      }
      parked += this.parkedByCollection.get(name) ?? 0;
    }
    if (recount) this.parkedCountedAt = Date.now();
    this.parkedGauge.set(parked);
  }

  private forgetTopicsIfUnknown(e: unknown): void {
    if (kafkaErrorTypes(e).includes('UNKNOWN_TOPIC_OR_PARTITION')) this.knownTopics.clear();
  }

  private schedule(delay: number): void {
    clearTimeout(this.timer);
    this.timerDueAt = Date.now() + delay;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // a pass belongs to no request's trace (a nudge comes from one); each record continues its own (ADR 0014)
      this.running = untraced(() => this.loop()).finally(() => (this.running = undefined));
    }, delay);
  }

  private async loop(): Promise<void> {
    const poll = this.opts.pollIntervalMs ?? 250;
    let next: number;
    this.again = false;
    try {
      const n = await this.drainOnce();
      this.idlePasses = n > 0 ? 0 : this.idlePasses + 1;
      // more may be waiting after a publish; an idle relay backs off (nudges and publishes reset it)
      next = n > 0 ? (this.full ? 0 : this.gatherMs()) : idleDelay(poll, this.opts.idlePollMaxMs ?? poll * 8, this.idlePasses);
      // 'stream': a pass that read the stream already waited there (its getMore is the poll)
      if (this.progressMode === 'stream' && this.streamRead) next = n > 0 ? this.gatherMs() : 0;
    } catch (e) {
      next = 1000;
      if (!this.stopped) this.opts.logger.warn({ err: (e as Error).message, kafka_errors: kafkaErrorTypes(e), relay: this.opts.name }, 'outbox relay pass failed; will retry');
    }
    if (this.again) next = Math.min(next, this.gatherMs());
    if (!this.stopped) this.schedule(next);
  }
}
