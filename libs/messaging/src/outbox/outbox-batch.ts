import { envelopeHeaders } from '../publisher/publisher';
import type { OutboxRecord } from '../publisher/transactional-sender';
import { OutboxEntry, ParkCode } from './outbox';
import type { OutgoingMessage } from '@mw/contracts';

/** Entries of one document to publish this pass: a prefix of its `_outbox`, in order. */
export interface PlannedDoc {
  readonly _id: unknown;
  /** The document's shard-key fields: added to the filter of its updates so mongos routes them (ADR 0010). */
  readonly key?: Readonly<Record<string, unknown>>;
  readonly entries: readonly OutboxEntry[];
  readonly records: readonly OutboxRecord[];
  readonly bytes: number;
}

export interface ParkDecision {
  readonly _id: unknown;
  readonly key?: Readonly<Record<string, unknown>>;
  readonly entry: OutboxEntry;
  readonly code: ParkCode;
  readonly reason: string;
}

export interface BatchLimits {
  /** Sum of record sizes per pass: one produce request, and one record batch per partition, stay below max.message.bytes. */
  readonly maxBatchBytes: number;
  /** Largest record (envelope + key + headers) any topic accepts. */
  readonly maxRecordBytes: number;
  /** Topics the cluster does not have. */
  readonly missingTopics: ReadonlySet<string>;
}

const TOPIC_NAME = /^[A-Za-z0-9._-]{1,249}$/;

/** The record as the relay sends it, or why it never can be. */
export function toRecord(entry: OutboxEntry, limits: Pick<BatchLimits, 'maxRecordBytes' | 'missingTopics'>): { record: OutboxRecord; bytes: number } | { code: ParkCode; reason: string } {
  if (!TOPIC_NAME.test(entry.topic) || typeof entry.key !== 'string' || typeof entry.envelope !== 'string') {
    return { code: 'MESSAGING.INVALID_OUTBOX_ENTRY', reason: `entry ${entry.id}: invalid topic, key or envelope` };
  }
  let envelope: OutgoingMessage['envelope'];
  try {
    envelope = JSON.parse(entry.envelope) as OutgoingMessage['envelope'];
  } catch (e) {
    return { code: 'MESSAGING.INVALID_OUTBOX_ENTRY', reason: `entry ${entry.id}: envelope is not JSON (${(e as Error).message})` };
  }
  if (limits.missingTopics.has(entry.topic)) return { code: 'MESSAGING.TOPIC_NOT_FOUND', reason: `topic ${entry.topic} does not exist` };
  const headers = envelopeHeaders({ topic: entry.topic, key: entry.key, envelope } as OutgoingMessage) as Record<string, string>;
  // the stored trace context (the relay replaces it with its publish span's, of the same length: ADR 0014)
  if (typeof entry.traceparent === 'string') headers['traceparent'] = entry.traceparent;
  const bytes =
    Buffer.byteLength(entry.envelope) + Buffer.byteLength(entry.key) + Object.entries(headers).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(String(v)) + 8, 0) + 64;
  if (bytes > limits.maxRecordBytes) {
    return { code: 'MESSAGING.MESSAGE_TOO_LARGE', reason: `record of entry ${entry.id} is ${bytes} bytes; topics accept ${limits.maxRecordBytes}` };
  }
  return { record: { topic: entry.topic, key: entry.key, value: entry.envelope, headers }, bytes };
}

/**
 * Plans one pass over documents in the order the relay read them. Per document: its entries in
 * order up to the first one that can never be published, which is parked (the later ones wait
 * behind it: per-aggregate order); the pass stops taking entries once `maxBatchBytes` is reached
 * (the first entry always fits: it is bounded by `maxRecordBytes`).
 */
export function planBatch(docs: readonly { _id: unknown; key?: Readonly<Record<string, unknown>>; entries: readonly OutboxEntry[] }[], limits: BatchLimits): { send: PlannedDoc[]; park: ParkDecision[] } {
  const send: PlannedDoc[] = [];
  const park: ParkDecision[] = [];
  let total = 0;
  let full = false;
  for (const doc of docs) {
    if (full) break;
    const entries: OutboxEntry[] = [];
    const records: OutboxRecord[] = [];
    let bytes = 0;
    for (const entry of doc.entries) {
      const r = toRecord(entry, limits);
      if ('code' in r) {
        park.push({ _id: doc._id, key: doc.key, entry, code: r.code, reason: r.reason });
        break;
      }
      if (total + bytes + r.bytes > limits.maxBatchBytes && total + bytes > 0) {
        full = true;
        break;
      }
      entries.push(entry);
      records.push(r.record);
      bytes += r.bytes;
    }
    if (entries.length > 0) send.push({ _id: doc._id, key: doc.key, entries, records, bytes });
    total += bytes;
  }
  return { send, park };
}
