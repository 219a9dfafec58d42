import { OutgoingMessage } from '@mw/contracts';
import { AppError, traceparentOf } from '@mw/platform';
import { maxEnvelopeBytes } from '../topics/topic-definitions';

/** Field holding pending outgoing messages inside an aggregate document. */
export const OUTBOX_FIELD = '_outbox' as const;

/** Why the relay set an entry aside instead of publishing it (ADR 0005). */
export interface ParkedMark {
  readonly code: ParkCode;
  readonly reason: string;
  readonly at: Date;
}
export type ParkCode = 'MESSAGING.MESSAGE_TOO_LARGE' | 'MESSAGING.TOPIC_NOT_FOUND' | 'MESSAGING.INVALID_OUTBOX_ENTRY' | 'MESSAGING.PUBLISH_REJECTED';

export interface OutboxEntry {
  readonly id: string;
  readonly topic: string;
  readonly key: string;
  /** The envelope JSON exactly as it will be published. */
  readonly envelope: string;
  readonly created_at: Date;
  /**
   * W3C trace context of the transition that wrote the entry (ADR 0014): the relay's publish
   * continues that trace, whenever and by whichever process it happens. Absent with tracing off.
   */
  readonly traceparent?: string;
  /**
   * Set by the relay when the broker can never accept the entry. The document's entries (this one
   * and every later one) then wait until an operator requeues or drops it; others keep flowing.
   */
  readonly parked?: ParkedMark;
}

/**
 * Builds the entries; an envelope larger than any topic accepts (max.message.bytes minus room for
 * key and headers) is refused here, where the caller can still answer, instead of stalling the
 * relay later.
 */
export function toOutboxEntries(messages: readonly OutgoingMessage[], now = new Date()): OutboxEntry[] {
  const traceparent = traceparentOf();
  return messages.map((m) => {
    const envelope = JSON.stringify(m.envelope);
    const bytes = Buffer.byteLength(envelope);
    if (bytes > maxEnvelopeBytes) {
      throw new AppError(
        'MESSAGING.MESSAGE_TOO_LARGE',
        'too_large',
        `${m.envelope.type} ${m.envelope.id} for ${m.topic} is ${bytes} bytes; a message may take at most ${maxEnvelopeBytes}`,
      );
    }
    return { id: m.envelope.id, topic: m.topic, key: m.key, envelope, created_at: now, ...(traceparent ? { traceparent } : {}) };
  });
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
