import { z } from 'zod';
import { productMessages } from './catalog/products';
import { categoryMessages } from './catalog/categories';
import { inventoryCommandMessages } from './inventory/commands';
import { inventoryEventMessages } from './inventory/events';
import { cartCheckoutMessages } from './carts/checkout';
import { orderMessages } from './orders/orders';
import { Envelope, EnvelopeHeader, RawEnvelope } from './common/envelope';
import { AnyMessageDef, PayloadOfDef } from './common/message';

/**
 * The registry: each versioned topic (one per aggregate stream) and the message types it may carry.
 * A payload of a type that does not belong to the topic does not compile (see topics.test-d.ts).
 */
export const topics = {
  'catalog.products.v1': productMessages,
  'catalog.categories.v1': categoryMessages,
  'inventory.commands.v1': inventoryCommandMessages,
  'inventory.events.v1': inventoryEventMessages,
  'carts.checkout.v1': cartCheckoutMessages,
  'orders.orders.v1': orderMessages,
} as const;

export type TopicName = keyof typeof topics;
export type MessageDefsOf<T extends TopicName> = (typeof topics)[T][number];
export type MessageTypeOf<T extends TopicName> = MessageDefsOf<T>['type'];
export type MessageDefOf<T extends TopicName, M extends MessageTypeOf<T>> = Extract<MessageDefsOf<T>, { type: M }>;
export type PayloadOf<T extends TopicName, M extends MessageTypeOf<T>> = PayloadOfDef<MessageDefOf<T, M>>;

/** The discriminated union of envelopes a consumer of topic T can receive. */
export type EnvelopeOf<T extends TopicName> = T extends TopicName
  ? { [M in MessageTypeOf<T>]: Envelope<M, PayloadOf<T, M>> }[MessageTypeOf<T>]
  : never;

export const topicNames = Object.keys(topics) as TopicName[];

export function isTopicName(name: string): name is TopicName {
  return Object.prototype.hasOwnProperty.call(topics, name);
}

/** Dead-letter topic of a topic. */
export const dlqTopicOf = (topic: string): string => `${topic}.dlq`;

export function messageDef<T extends TopicName, M extends MessageTypeOf<T>>(topic: T, type: M): MessageDefOf<T, M> {
  const def = (topics[topic] as readonly AnyMessageDef[]).find((d) => d.type === type);
  if (!def) throw new Error(`message type ${type} is not registered on topic ${topic}`);
  return def as MessageDefOf<T, M>;
}

export type DecodeResult<T extends TopicName> =
  | { readonly ok: true; readonly envelope: EnvelopeOf<T> }
  | { readonly ok: false; readonly reason: string };

/** Validates a decoded JSON value as an envelope of one of the topic's message types. */
export function decodeEnvelope<T extends TopicName>(topic: T, value: unknown): DecodeResult<T> {
  const header = RawEnvelope.safeParse(value);
  if (!header.success) return { ok: false, reason: `invalid envelope: ${formatIssues(header.error)}` };
  const def = (topics[topic] as readonly AnyMessageDef[]).find((d) => d.type === header.data.type);
  if (!def) return { ok: false, reason: `unknown message type "${header.data.type}" for topic ${topic}` };
  if (header.data.version > def.version) {
    return { ok: false, reason: `unsupported version ${header.data.version} of ${def.type} (max ${def.version})` };
  }
  const payload = def.schema.safeParse(header.data.payload);
  if (!payload.success) return { ok: false, reason: `invalid ${def.type} payload: ${formatIssues(payload.error)}` };
  const envelope = { ...header.data, payload: payload.data } as EnvelopeOf<T>;
  return { ok: true, envelope };
}

/** "lines.0.qty: Too small: expected number to be >0; zone: Invalid string" */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 10)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

export { EnvelopeHeader };
