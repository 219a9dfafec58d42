import { OutgoingMessage } from '@mw/contracts';

/** Field holding pending outgoing messages inside an aggregate document. */
export const OUTBOX_FIELD = '_outbox' as const;

export interface OutboxEntry {
  readonly id: string;
  readonly topic: string;
  readonly key: string;
  /** The envelope JSON exactly as it will be published. */
  readonly envelope: string;
  readonly created_at: Date;
}

export function toOutboxEntries(messages: readonly OutgoingMessage[], now = new Date()): OutboxEntry[] {
  return messages.map((m) => ({ id: m.envelope.id, topic: m.topic, key: m.key, envelope: JSON.stringify(m.envelope), created_at: now }));
}

/**
 * The `$push` that stores messages in the same document as the state change, so the change and
 * its events are written by one atomic single-document update. Merge it into the update:
 * `{ $set: {...}, $inc: {version: 1}, ...outboxPush([msg]) }`.
 */
export function outboxPush(messages: readonly OutgoingMessage[], now = new Date()): { $push: { _outbox: { $each: OutboxEntry[] } } } {
  return { $push: { _outbox: { $each: toOutboxEntries(messages, now) } } };
}

/** Mix into an aggregate's document type so typed collections accept `outboxPush`. */
export interface WithOutbox {
  _outbox?: OutboxEntry[];
}
