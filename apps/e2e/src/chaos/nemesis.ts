import type { Stack } from '../stack';
import { ClusterChaosInfra, holdPartition, outcomeOf, type PartitionOutcome } from './cluster-infra';
import type { Fault } from './plan';

/**
 * The partition nemesis of the cluster topology (ADR 0062): each partition fault cut, held, healed
 * and measured. Servers' partitions are ClusterChaosInfra's; a service instance's split from the
 * brokers is measured here, by its consumer groups: it leaves them (its partitions move to the
 * other instance) once its session times out, and is back in every one of them after the heal.
 */
export type PartitionFault = Extract<
  Fault,
  {
    kind:
      'partition-mongodb-primary' | 'partition-kafka-leader' | 'partition-cassandra-node' | 'isolate-service';
  }
>;

export function injectPartition(
  s: Stack,
  infra: ClusterChaosInfra,
  f: PartitionFault,
): Promise<PartitionOutcome> {
  switch (f.kind) {
    case 'partition-mongodb-primary':
      return infra.partitionMongoPrimary(f.holdMs);
    case 'partition-kafka-leader':
      return infra.partitionKafkaLeader(f.holdMs);
    case 'partition-cassandra-node':
      return infra.partitionCassandraNode(f.node, f.mode, f.holdMs);
    case 'isolate-service':
      return isolateService(s, infra, f.target, f.holdMs);
  }
}

/**
 * The consumer groups one instance is a member of right now (by the client id the stack gave it).
 * Asked again (up to 5 times, 1 s apart) when the broker the admin client picked is the one another
 * fault just SIGKILLed: the measurement must not fail a partition the system itself rode out.
 */
async function groupsOf(s: Stack, id: string): Promise<Set<string>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await groupsOnce(s, id);
    } catch (e) {
      if (attempt >= 5) throw e;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

async function groupsOnce(s: Stack, id: string): Promise<Set<string>> {
  const clientId = `${id}-${s.run}`;
  const admin = s.kafka.admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups(Object.values(s.groups));
    return new Set(
      groups.filter((g) => g.members.some((m) => m.clientId.startsWith(clientId))).map((g) => g.groupId),
    );
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

async function isolateService(
  s: Stack,
  infra: ClusterChaosInfra,
  id: string,
  holdMs: number,
): Promise<PartitionOutcome> {
  const before = await groupsOf(s, id);
  const r = await holdPartition({
    cut: () => infra.cutFromBrokers(id),
    heal: () => infra.healFromBrokers(id),
    holdMs,
    // its session expired: the coordinator took it out of every group (the others took its partitions)
    ...(before.size > 0
      ? { failover: async () => ((await groupsOf(s, id)).size === 0 ? 'left' : undefined) }
      : {}),
    recovered: async () => {
      const now = await groupsOf(s, id);
      if (![...before].every((g) => now.has(g))) return false;
      await s.waitReady(id, 5000);
      return true;
    },
  });
  const detail = before.size
    ? `${id} (${infra.hostOf(id).address}) split from the brokers; ${r.failover ? 'left' : 'never left'} ${[...before].join(', ')}; back in every group after the heal`
    : `${id} (${infra.hostOf(id).address}) split from the brokers (it consumes nothing); ready after the heal`;
  // an instance in no group has nothing to move: only its readiness after the heal counts
  return before.size
    ? outcomeOf(r, 'its partitions moving to the other instance', detail)
    : { detail, failover_s: null, held_s: r.held_s, after_heal_s: r.after_heal_s };
}
