import { dlqTopicOf, TopicName, topicNames } from './topics';

/**
 * Who may do what on Kafka (ADR 0009): the one source of truth the broker's ACLs are derived from
 * (tools/infra after every start, the compose `kafka-init` job). Names only — principals, topics,
 * group and transactional-id prefixes; tools/workspace/src/kafka-access.spec.ts checks that each
 * service's code produces and consumes exactly what this table says.
 */

/** One SASL principal per service process. */
export const servicePrincipals = ['catalog', 'catalog-projector', 'inventory', 'carts', 'orders'] as const;
export type ServicePrincipal = (typeof servicePrincipals)[number];

/**
 * Besides the services: `admin` (super user: tools/infra creates topics and ACLs), `ops` (the
 * operator tools in libs/messaging/scripts: DLQ redrive; orders' operator endpoints: lag, dead
 * letters, redrive) and `test` (integration tests and
 * benchmarks on private topics; never a registry topic).
 */
export const toolPrincipals = ['admin', 'ops', 'test'] as const;
export type ToolPrincipal = (typeof toolPrincipals)[number];
export type KafkaPrincipal = ServicePrincipal | ToolPrincipal;
export const kafkaPrincipals: readonly KafkaPrincipal[] = [...servicePrincipals, ...toolPrincipals];

/** The only principal that may write each registry topic, and the principals that consume it. */
export const topicAccess: Readonly<
  Record<TopicName, { readonly producer: ServicePrincipal; readonly consumers: readonly ServicePrincipal[] }>
> = {
  'catalog.products.v1': { producer: 'catalog', consumers: ['catalog-projector', 'carts'] },
  'catalog.categories.v1': { producer: 'catalog', consumers: [] },
  'inventory.commands.v1': { producer: 'orders', consumers: ['inventory'] },
  'inventory.events.v1': { producer: 'inventory', consumers: ['orders', 'carts'] },
  'carts.checkout.v1': { producer: 'carts', consumers: ['orders'] },
  'orders.orders.v1': { producer: 'orders', consumers: ['carts', 'orders'] }, // orders: the sales analytics read model (group orders-analytics)
};

/**
 * Consumer groups a service may use: prefixed by its default KAFKA_GROUP_ID (`orders` covers
 * `orders-analytics`). A prefix is not a substring of another service's (`catalog` consumes nothing
 * and has none, so it cannot join `catalog-projector`).
 */
export const consumerGroupPrefix: Readonly<Record<ServicePrincipal, string | undefined>> = {
  catalog: undefined,
  'catalog-projector': 'catalog-projector',
  inventory: 'inventory',
  carts: 'carts',
  orders: 'orders',
};

/** Transactional ids of a service's outbox relay: `outbox-relay.<database>.<name>` (libs/messaging). */
export const transactionalIdPrefix: Readonly<Record<ServicePrincipal, string | undefined>> = {
  catalog: 'outbox-relay.catalog',
  'catalog-projector': undefined,
  inventory: 'outbox-relay.inventory',
  carts: undefined,
  orders: 'outbox-relay.orders',
};

/** Prefixes of every private topic, consumer group and transactional id of tests and benchmarks. */
export const testResourcePrefixes = {
  /** `catalog.products.v1.` too: the projector's topic must start with its registry name (its private copies in tests and the benchmark). */
  topics: ['test.', 'e2e.', 'bench.', 'catalog.products.v1.'],
} as const;

export type AclResource = 'topic' | 'group' | 'transactional-id' | 'cluster';
export type AclPattern = 'literal' | 'prefixed';
export type AclOperation =
  'read' | 'write' | 'describe' | 'describe-configs' | 'create' | 'delete' | 'alter-configs' | 'all';

/** One ALLOW (or DENY) binding for `User:<principal>`. */
export interface AclEntry {
  readonly principal: KafkaPrincipal;
  readonly resource: AclResource;
  readonly pattern: AclPattern;
  readonly name: string;
  readonly operation: AclOperation;
  readonly permission: 'allow' | 'deny';
}

/** Topics a service touches (produces or consumes), with the DLQs its start-up verifies. */
export function topicsOf(principal: ServicePrincipal): { produces: TopicName[]; consumes: TopicName[] } {
  return {
    produces: topicNames.filter((t) => topicAccess[t].producer === principal),
    consumes: topicNames.filter((t) => topicAccess[t].consumers.includes(principal)),
  };
}

const allow = (
  principal: KafkaPrincipal,
  resource: AclResource,
  pattern: AclPattern,
  name: string,
  operation: AclOperation,
): AclEntry => ({
  principal,
  resource,
  pattern,
  name,
  operation,
  permission: 'allow',
});

function serviceAcls(principal: ServicePrincipal): AclEntry[] {
  const { produces, consumes } = topicsOf(principal);
  const entries: AclEntry[] = [];
  // start-up verifies every topic it declares and that topic's DLQ (libs/messaging topic-admin)
  for (const topic of [...new Set([...produces, ...consumes])]) {
    for (const name of [topic, dlqTopicOf(topic)]) {
      entries.push(
        allow(principal, 'topic', 'literal', name, 'describe'),
        allow(principal, 'topic', 'literal', name, 'describe-configs'),
      );
    }
  }
  for (const topic of produces) entries.push(allow(principal, 'topic', 'literal', topic, 'write'));
  // a consumer parks what it cannot handle in <topic>.dlq
  for (const topic of consumes) {
    entries.push(
      allow(principal, 'topic', 'literal', topic, 'read'),
      allow(principal, 'topic', 'literal', dlqTopicOf(topic), 'write'),
    );
  }
  const group = consumerGroupPrefix[principal];
  if (group !== undefined)
    entries.push(
      allow(principal, 'group', 'prefixed', group, 'read'),
      allow(principal, 'group', 'prefixed', group, 'describe'),
    );
  const txn = transactionalIdPrefix[principal];
  if (txn !== undefined)
    entries.push(
      allow(principal, 'transactional-id', 'prefixed', txn, 'write'),
      allow(principal, 'transactional-id', 'prefixed', txn, 'describe'),
    );
  return entries;
}

/**
 * `ops` redrives a group's dead letters: reads every DLQ, writes the topic back, keeps its position
 * in `redrive.*` groups (and reads a DLQ for the operator in a `redrive.browse.*` group that commits
 * nothing); it describes every consumer group, to report their lag (orders' operator endpoints).
 */
function opsAcls(): AclEntry[] {
  return [
    ...topicNames.flatMap((t) => [
      allow('ops', 'topic', 'literal', dlqTopicOf(t), 'read'),
      allow('ops', 'topic', 'literal', t, 'write'),
    ]),
    allow('ops', 'group', 'prefixed', 'redrive.', 'read'),
    allow('ops', 'group', 'prefixed', 'redrive.', 'describe'),
    allow('ops', 'group', 'literal', '*', 'describe'),
  ];
}

/**
 * `test` owns private names only: everything on the test prefixes, any consumer group and
 * transactional id (a group or id gives nothing without its topic), describe on the registry topics
 * (a service under test verifies the ones it declares), and an explicit DENY of read and write on
 * every registry topic and DLQ, which wins over any ALLOW (`catalog.products.v1.dlq` matches the
 * `catalog.products.v1.` prefix) — a test never reads or writes the real bus as `test`.
 */
function testAcls(): AclEntry[] {
  const registry = topicNames.flatMap((t) => [t, dlqTopicOf(t)]);
  return [
    ...testResourcePrefixes.topics.map((p) => allow('test', 'topic', 'prefixed', p, 'all')),
    allow('test', 'group', 'literal', '*', 'all'),
    allow('test', 'transactional-id', 'literal', '*', 'all'),
    ...registry.flatMap((name) => [
      allow('test', 'topic', 'literal', name, 'describe'),
      allow('test', 'topic', 'literal', name, 'describe-configs'),
    ]),
    ...registry.flatMap((name) =>
      (['read', 'write'] as const).map((operation): AclEntry => ({
        ...allow('test', 'topic', 'literal', name, operation),
        permission: 'deny',
      })),
    ),
  ];
}

/** Every ACL binding of the cluster (admin is a super user and has none). */
export function kafkaAclTable(): AclEntry[] {
  return [...servicePrincipals.flatMap(serviceAcls), ...opsAcls(), ...testAcls()];
}
