import { z } from 'zod';
import { access, endpoint } from '@mw/platform';
import type { ConsumerLagReport as LagReport, DeadLetterTopic } from './kafka-operations';

const Timestamp = z.iso
  .datetime()
  .meta({ description: 'ISO-8601, UTC', example: '2026-11-21T10:00:00.000Z' });
const topicName = z.string().regex(/^[A-Za-z0-9._-]{1,200}$/);
const operators = access.roles('operator');
const opsNote =
  'Read from Kafka as the `ops` principal (ADR 0009); 503 `ORDERS.OPS_KAFKA_UNAVAILABLE` when this instance has no ' +
  'ops credentials (OPS_KAFKA_PASSWORD) or the broker does not answer. Operators only.';

const GroupLag = z.object({
  group: z.string(),
  total_lag: z.number().int().min(0),
  partitions: z.array(
    z.object({
      topic: z.string(),
      partition: z.number().int().min(0),
      lag: z.number().int().min(0).meta({ description: 'End offset − committed offset' }),
    }),
  ),
});

export const ConsumerLagReport = z.object({
  as_of: Timestamp,
  groups: z.array(GroupLag).meta({ description: 'Every consumer group, by name' }),
  projector: GroupLag.nullable().meta({
    description:
      "The catalog projector's group (the storefront's read model); null when it has not committed yet",
  }),
});

const projectorLag = {
  group: 'catalog-projector',
  total_lag: 3,
  partitions: [
    { topic: 'catalog.products.v1', partition: 0, lag: 3 },
    { topic: 'catalog.products.v1', partition: 1, lag: 0 },
  ],
};

export const getConsumerLag = endpoint({
  operationId: 'getConsumerLag',
  method: 'GET',
  path: '/operations/consumer-lag',
  tag: 'operations',
  summary: 'Consumer lag per group and partition, and the catalog projector’s',
  description:
    'For every consumer group: end offset − committed offset of each partition it has committed on (a partition ' +
    'never committed on is left out, as in the `kafka_consumer_group_lag` gauge). The projector’s lag in time ' +
    '(event age at projection) is the catalog projector’s Prometheus histogram. ' +
    opsNote,
  access: operators,
  rateLimit: 'reads',
  errors: [503],
  response: {
    status: 200,
    description: 'The lag of every group',
    schema: ConsumerLagReport,
    example: {
      as_of: '2026-11-21T10:00:00.000Z',
      groups: [
        projectorLag,
        {
          group: 'inventory',
          total_lag: 0,
          partitions: [{ topic: 'inventory.commands.v1', partition: 0, lag: 0 }],
        },
      ],
      projector: projectorLag,
    } satisfies LagReport,
  },
});

const DeadLetter = z.object({
  partition: z.number().int().min(0),
  offset: z.string().regex(/^\d+$/),
  key: z.string().nullable(),
  group: z
    .string()
    .nullable()
    .meta({ description: 'The consumer group that parked it; a redrive is per group' }),
  error_code: z.string().nullable(),
  reason: z.string().nullable(),
  attempts: z.number().int().nullable(),
  parked_at: z.string().nullable(),
  type: z.string().nullable().meta({ description: 'The message type of the parked envelope' }),
  redriven: z.boolean().meta({ description: 'Already moved back to the topic by a redrive for its group' }),
});

export const DeadLetters = z.object({
  topics: z.array(z.object({ topic: z.string(), dlq: z.string(), messages: z.array(DeadLetter) })),
});

const deadLettersExample: { topics: DeadLetterTopic[] } = {
  topics: [
    {
      topic: 'inventory.commands.v1',
      dlq: 'inventory.commands.v1.dlq',
      messages: [
        {
          partition: 0,
          offset: '0',
          key: '2080b7bbfd2b207dcbe80bb1',
          group: 'inventory',
          error_code: 'COMMON.VALIDATION_FAILED',
          reason: 'payload.lines: at least one line',
          attempts: 1,
          parked_at: '2026-11-21T10:00:00.000Z',
          type: 'ReserveStock',
          redriven: false,
        },
      ],
    },
  ],
};

export const listDeadLetters = endpoint({
  operationId: 'listDeadLetters',
  method: 'GET',
  path: '/operations/dead-letters',
  tag: 'operations',
  summary: 'Dead-letter topics and their parked messages',
  description:
    'For each topic of the registry (OPS_DLQ_TOPICS), the messages in `<topic>.dlq` still in the log (at most 200 ' +
    'per topic, oldest first), with the dead-letter headers: which consumer group parked it, why, when, and whether a ' +
    'redrive for that group has moved it back already. Reading joins no consumer group position: it changes nothing. ' +
    opsNote,
  access: operators,
  rateLimit: 'reads',
  errors: [503],
  response: {
    status: 200,
    description: 'The dead letters',
    schema: DeadLetters,
    example: deadLettersExample,
  },
});

export const RedriveResult = z.object({
  dlq: z.string(),
  group: z.string(),
  moved: z.number().int().min(0).meta({ description: 'Messages of this group republished to the topic now' }),
  passed: z
    .number()
    .int()
    .min(0)
    .meta({ description: 'Messages of other groups passed over (left for their redrive)' }),
});

export const redriveDeadLetters = endpoint({
  operationId: 'redriveDeadLetters',
  method: 'POST',
  path: '/operations/dead-letters/:topic/redrive',
  tag: 'operations',
  summary: 'Republish the messages one consumer group parked back to their topic',
  description:
    'The redrive of `npm run dlq:redrive`: every message `group` parked in `<topic>.dlq` since the last redrive for ' +
    'that group goes back to its original topic (same key and value, marked for that group only, its redrive count ' +
    'raised); the redrive keeps its position per group in Kafka, committed message by message after each send, so a ' +
    'repeated request moves nothing twice (at worst one message after a crash between send and commit; ' +
    'the at-least-once delivery every consumer handles) and answers `moved: 0`. The DLQ keeps the record (a log): it is listed ' +
    'as `redriven`. 422 for a topic outside OPS_DLQ_TOPICS. ' +
    opsNote,
  access: operators,
  params: z.strictObject({
    topic: topicName.meta({ description: 'The original topic', example: 'inventory.commands.v1' }),
  }),
  body: z.strictObject({
    group: z
      .string()
      .min(1)
      .max(200)
      .meta({ description: 'The consumer group whose dead letters to move', example: 'inventory' }),
  }),
  bodyExample: { group: 'inventory' },
  errors: [422, 503],
  response: {
    status: 200,
    description: 'What moved',
    schema: RedriveResult,
    example: { dlq: 'inventory.commands.v1.dlq', group: 'inventory', moved: 1, passed: 0 },
  },
});
