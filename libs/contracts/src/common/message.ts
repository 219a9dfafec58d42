import { z } from 'zod';

/**
 * A message type: its name inside the topic, schema version, payload schema and the
 * payload field that is the Kafka key (the aggregate id), so per-aggregate order holds.
 */
export interface MessageDef<TType extends string, TSchema extends z.ZodObject> {
  readonly type: TType;
  readonly version: number;
  readonly schema: TSchema;
  readonly key: keyof z.infer<TSchema> & string;
  /** Builds a payload, validating it: a factory that cannot produce an invalid message. */
  create(payload: z.input<TSchema>): z.infer<TSchema>;
}

export function defineMessage<TType extends string, TSchema extends z.ZodObject>(
  type: TType,
  schema: TSchema,
  key: keyof z.infer<TSchema> & string,
  version = 1,
): MessageDef<TType, TSchema> {
  return { type, version, schema, key, create: (payload) => schema.parse(payload) };
}

/** Any message definition, used where the concrete type does not matter. */
export type AnyMessageDef = MessageDef<string, z.ZodObject>;

export type PayloadOfDef<D> = D extends MessageDef<string, infer S> ? z.infer<S> : never;
