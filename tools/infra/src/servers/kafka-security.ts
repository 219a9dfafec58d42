/**
 * SASL/SCRAM-SHA-512 and ACLs of the local Kafka (ADR 0009). Every principal of
 * `@mw/contracts` kafkaPrincipals gets a SCRAM credential when the KRaft storage is formatted;
 * after every start tools/infra (as `admin`, the only super user besides the loopback controller
 * listener) creates the registry topics and makes the ACLs exactly `kafkaAclTable()`.
 *
 * The passwords are development secrets, committed like the Keycloak realm's: a deployment takes
 * each service's from its own secret (KAFKA_USERNAME / KAFKA_PASSWORD).
 */
import type { Admin, Kafka, SASLOptions } from 'kafkajs';
import type { TopicPolicy } from '@mw/messaging';
import {
  type AclEntry,
  type KafkaPrincipal,
  kafkaAclTable,
  kafkaPrincipals,
  topicNames,
} from '@mw/contracts';

export const KAFKA_SASL_MECHANISM = 'scram-sha-512';
/** The principal tools/infra administers the cluster as (super user). */
export const KAFKA_ADMIN_PRINCIPAL = 'admin';
/** The principal integration tests and benchmarks connect as (KAFKA_USERNAME of `infra:env`). */
export const KAFKA_TEST_PRINCIPAL = 'test';

/** Development password of a principal. */
export function kafkaDevPassword(principal: KafkaPrincipal): string {
  return `${principal}-dev-secret`;
}

/** `KAFKA_PASSWORD_CATALOG_PROJECTOR` for `catalog-projector`: where `infra:env` exports each principal's password. */
export function kafkaPasswordVariable(principal: KafkaPrincipal): string {
  return `KAFKA_PASSWORD_${principal.toUpperCase().replace(/-/g, '_')}`;
}

export function kafkaSasl(principal: KafkaPrincipal): SASLOptions {
  return { mechanism: KAFKA_SASL_MECHANISM, username: principal, password: kafkaDevPassword(principal) };
}

/** `kafka-storage format --add-scram` arguments: one SCRAM-SHA-512 credential per principal. */
export function scramFormatArgs(): string[] {
  return kafkaPrincipals.flatMap((p) => [
    '--add-scram',
    `SCRAM-SHA-512=[name=${p},password=${kafkaDevPassword(p)}]`,
  ]);
}

/**
 * What tests, tools and `npm start` need: the mechanism, the test principal as KAFKA_USERNAME /
 * KAFKA_PASSWORD, and every other principal's password (never the admin's) under its own variable.
 */
export function kafkaCredentialEnv(): Record<string, string> {
  const env: Record<string, string> = {
    KAFKA_SASL_MECHANISM: KAFKA_SASL_MECHANISM,
    KAFKA_USERNAME: KAFKA_TEST_PRINCIPAL,
    KAFKA_PASSWORD: kafkaDevPassword(KAFKA_TEST_PRINCIPAL),
  };
  for (const p of kafkaPrincipals)
    if (p !== KAFKA_ADMIN_PRINCIPAL) env[kafkaPasswordVariable(p)] = kafkaDevPassword(p);
  return env;
}

/** A fingerprint of the principals formatted into the storage: a new principal means a new format. */
export function scramFingerprint(): string {
  return JSON.stringify({ mechanism: 'SCRAM-SHA-512', principals: [...kafkaPrincipals].sort() });
}

// kafkajs' AclResourceTypes / AclOperationTypes / ResourcePatternTypes / AclPermissionTypes values (Kafka's wire codes)
const RESOURCE = { topic: 2, group: 3, cluster: 4, 'transactional-id': 5 } as const;
const OPERATION = {
  all: 2,
  read: 3,
  write: 4,
  create: 5,
  delete: 6,
  describe: 8,
  'describe-configs': 10,
  'alter-configs': 11,
} as const;
const PATTERN = { literal: 3, prefixed: 4 } as const;
const PERMISSION = { deny: 2, allow: 3 } as const;

export interface WireAcl {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly resourcePatternType: number;
  readonly principal: string;
  readonly host: string;
  readonly operation: number;
  readonly permissionType: number;
}

export function toWireAcl(e: AclEntry): WireAcl {
  return {
    resourceType: RESOURCE[e.resource],
    resourceName: e.name,
    resourcePatternType: PATTERN[e.pattern],
    principal: `User:${e.principal}`,
    host: '*',
    operation: OPERATION[e.operation],
    permissionType: PERMISSION[e.permission],
  };
}

const keyOf = (a: WireAcl): string =>
  [
    a.resourceType,
    a.resourceName,
    a.resourcePatternType,
    a.principal,
    a.host,
    a.operation,
    a.permissionType,
  ].join('|');

/** Of the bindings the cluster has, those the table does not (removed), and of the table's, those it lacks (added). */
export function aclDiff(
  existing: readonly WireAcl[],
  wanted: readonly WireAcl[],
): { add: WireAcl[]; remove: WireAcl[] } {
  const have = new Set(existing.map(keyOf));
  const want = new Set(wanted.map(keyOf));
  return {
    add: wanted.filter((a) => !have.has(keyOf(a))),
    remove: existing.filter((a) => !want.has(keyOf(a))),
  };
}

async function currentAcls(admin: Admin): Promise<WireAcl[]> {
  // ANY (1) in every field: all bindings of the cluster
  const described = await admin.describeAcls({
    resourceType: 1,
    resourcePatternType: 1,
    operation: 1,
    permissionType: 1,
  } as unknown as Parameters<Admin['describeAcls']>[0]);
  return described.resources.flatMap((r) =>
    r.acls.map((a) => ({
      resourceType: r.resourceType as number,
      resourceName: r.resourceName,
      resourcePatternType: r.resourcePatternType as number,
      principal: a.principal,
      host: a.host,
      operation: a.operation as number,
      permissionType: a.permissionType as number,
    })),
  );
}

/**
 * Creates the registry topics (and their DLQs) from their definitions and makes the cluster's ACLs
 * exactly the table's: missing bindings created, bindings the table no longer has deleted.
 * Idempotent; returns how many bindings changed.
 */
export async function provisionKafka(
  kafka: Kafka,
  policy: TopicPolicy = { replicationFactor: 1, minInsyncReplicas: 1 },
): Promise<{ added: number; removed: number }> {
  // loaded here only: the CLI's other commands never pay for the messaging library
  const { ensureTopics } = await import('@mw/messaging');
  await ensureTopics(kafka, topicNames, 3, policy);
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { add, remove } = aclDiff(await currentAcls(admin), kafkaAclTable().map(toWireAcl));
    type CreateAcl = Parameters<Admin['createAcls']>[0]['acl'][number];
    type DeleteFilter = Parameters<Admin['deleteAcls']>[0]['filters'][number];
    if (add.length > 0) await admin.createAcls({ acl: add as unknown as CreateAcl[] });
    if (remove.length > 0) await admin.deleteAcls({ filters: remove as unknown as DeleteFilter[] });
    return { added: add.length, removed: remove.length };
  } finally {
    await admin.disconnect();
  }
}

const CLI_OPERATION: Readonly<Record<AclEntry['operation'], string>> = {
  all: 'All',
  read: 'Read',
  write: 'Write',
  create: 'Create',
  delete: 'Delete',
  describe: 'Describe',
  'describe-configs': 'DescribeConfigs',
  'alter-configs': 'AlterConfigs',
};
const CLI_RESOURCE: Readonly<Record<AclEntry['resource'], string>> = {
  topic: '--topic',
  group: '--group',
  'transactional-id': '--transactional-id',
  cluster: '--cluster',
};

/**
 * The same table as `kafka-acls.sh` lines, for the compose `kafka-init` job
 * (tools/infra/kafka/compose-acls.sh, checked against this by infra.spec.ts). `--add` is idempotent.
 */
export function composeAclScript(): string {
  const lines = kafkaAclTable().map((e) =>
    [
      'acl --add',
      `--${e.permission}-principal User:${e.principal}`,
      `--operation ${CLI_OPERATION[e.operation]}`,
      e.resource === 'cluster' ? '--cluster' : `${CLI_RESOURCE[e.resource]} '${e.name}'`,
      `--resource-pattern-type ${e.pattern}`,
    ].join(' '),
  );
  return [
    '# Generated from libs/contracts/src/access.ts (kafkaAclTable) by tools/infra — do not edit:',
    '#   npx tsx --tsconfig tsconfig.base.json tools/infra/src/cli.ts compose-acls > tools/infra/kafka/compose-acls.sh',
    '# Sourced by tools/infra/kafka/compose-init.sh, which defines acl() as kafka-acls.sh run as the admin.',
    ...lines,
    '',
  ].join('\n');
}
