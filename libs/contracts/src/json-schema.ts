import { z } from 'zod';
import { EnvelopeHeader } from './common/envelope';
import { AnyMessageDef } from './common/message';
import { topics, TopicName } from './topics';

export interface ExportedSchema {
  /** Relative file name, e.g. `inventory.commands.v1/ReserveStock.v1.schema.json`. */
  readonly file: string;
  readonly schema: Record<string, unknown>;
}

/**
 * JSON Schema (draft 2020-12) of the full envelope of every registered message, so a consumer
 * in another language validates exactly what the TypeScript services validate.
 */
export function exportJsonSchemas(): ExportedSchema[] {
  const out: ExportedSchema[] = [];
  for (const topic of Object.keys(topics) as TopicName[]) {
    for (const def of topics[topic] as readonly AnyMessageDef[]) {
      const envelope = EnvelopeHeader.extend({ type: z.literal(def.type), payload: def.schema });
      const schema = z.toJSONSchema(envelope, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
      out.push({
        file: `${topic}/${def.type}.v${def.version}.schema.json`,
        schema: {
          $id: `urn:mobile-world:${topic}:${def.type}:v${def.version}`,
          title: `${def.type} v${def.version} on ${topic}`,
          'x-kafka-topic': topic,
          'x-kafka-key': `payload.${def.key}`,
          ...schema,
        },
      });
    }
  }
  return out;
}
