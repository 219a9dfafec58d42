import { z } from 'zod';
import { IsoDateTime } from './primitives';

/** Upper bound for correlation and causation ids carried between services. */
const TraceId = z.string().min(1).max(128);

/**
 * Every Kafka message value is an envelope. `type` names the message inside the topic,
 * `version` is the schema version of that message type (additive changes keep it;
 * a breaking change is a new `.v2` topic), `correlation_id` follows a saga from its
 * first command to its last event, `causation_id` is the id of the message that caused this one.
 */
export const EnvelopeHeader = z.object({
  id: z.uuid(),
  type: z.string().min(1).max(100),
  version: z.number().int().positive(),
  occurred_at: IsoDateTime,
  correlation_id: TraceId,
  causation_id: TraceId.nullable(),
});
export type EnvelopeHeader = z.infer<typeof EnvelopeHeader>;

/** An envelope whose payload has not yet been validated against a message schema. */
export const RawEnvelope = EnvelopeHeader.extend({ payload: z.unknown() });
export type RawEnvelope = z.infer<typeof RawEnvelope>;

export interface Envelope<TType extends string = string, TPayload = unknown> extends EnvelopeHeader {
  readonly type: TType;
  readonly payload: TPayload;
}
