import type { InboundRecord } from './consumer-runner';

/** The header every message of the registry carries (KafkaPublisher): its `type`, readable without parsing the value. */
export const MESSAGE_TYPE_HEADER = 'x-message-type';

/** The record's message type from its header; undefined when it has none (a producer outside the registry's publisher). */
export function messageTypeOf(record: Pick<InboundRecord, 'headers'>): string | undefined {
  const v = record.headers?.[MESSAGE_TYPE_HEADER];
  const first = Array.isArray(v) ? v[0] : v;
  return first === undefined ? undefined : first.toString();
}

/**
 * The records a consumer must parse: those whose type header names a type it follows, and those
 * without the header (parsed and validated as before — an invalid one still reaches the dead-letter
 * topic). A record of a type the consumer ignores is passed over without parsing; its offset is
 * committed with the chunk's.
 */
export function recordsOfTypes<R extends Pick<InboundRecord, 'headers'>>(
  records: readonly R[],
  types: ReadonlySet<string>,
): R[] {
  return records.filter((r) => {
    const type = messageTypeOf(r);
    return type === undefined || types.has(type);
  });
}
