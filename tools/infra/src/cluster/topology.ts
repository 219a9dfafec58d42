/**
 * The cluster topology (ADR 0062): every server of the local infrastructure on a host of its own —
 * a Linux network namespace with one veth pair to a bridge the tooling creates — so that a
 * partition is a real one: `ip link set <host> down` cuts that host off from every other
 * (its process keeps running), `up` heals it.
 *
 * Addresses are from the benchmarking range 198.18.0.0/15 (RFC 2544) and never leave the bridge.
 * Every name the tooling creates starts with `mw-`, so `down` can find and remove all of it, also
 * after a crash.
 */

export type ClusterRole = 'kafka' | 'cassandra' | 'mongodb';

export const CLUSTER_ROLES: readonly ClusterRole[] = ['kafka', 'cassandra', 'mongodb'];

/** One network host: a namespace, its address on the bridge and the host side of its veth pair. */
export interface ClusterHost {
  /** `kafka-1`: the server's name in logs, pid files (`.infra/cluster/<name>`) and commands. */
  readonly name: string;
  readonly role: ClusterRole;
  /** 1-based index within its role (Kafka's node.id, the replica set member's _id + 1). */
  readonly index: number;
  /** `mw-kafka-1`: the namespace, and the name of the veth end on the bridge. */
  readonly namespace: string;
  readonly address: string;
}

export const NAME_PREFIX = 'mw-';
export const BRIDGE = 'mw-br0';
/** The subnet of the bridge; the root namespace's side of the bridge is its first address. */
export const SUBNET_PREFIX = '198.18.0';
export const PREFIX_LENGTH = 24;
export const BRIDGE_ADDRESS = `${SUBNET_PREFIX}.1`;
/** Each role's hosts take consecutive addresses from this last octet. */
const FIRST_OCTET: Readonly<Record<ClusterRole, number>> = { kafka: 11, cassandra: 21, mongodb: 31 };
export const NODES_PER_ROLE = 3;

/** The nine server hosts: three Kafka brokers, three Cassandra nodes, three replica set members. */
export function clusterHosts(): ClusterHost[] {
  return CLUSTER_ROLES.flatMap((role) =>
    Array.from({ length: NODES_PER_ROLE }, (_, i) => {
      const name = `${role}-${i + 1}`;
      return {
        name,
        role,
        index: i + 1,
        namespace: `${NAME_PREFIX}${name}`,
        address: `${SUBNET_PREFIX}.${FIRST_OCTET[role] + i}`,
      };
    }),
  );
}

export function hostsOf(role: ClusterRole, hosts: readonly ClusterHost[] = clusterHosts()): ClusterHost[] {
  return hosts.filter((h) => h.role === role);
}

/** The port each role's server listens on, on its own address. */
export const CLUSTER_PORTS = {
  kafka: 9092,
  kafkaController: 9093,
  cassandra: 9042,
  cassandraStorage: 7000,
  cassandraSslStorage: 7001,
  /** JMX on the namespace's own loopback only. */
  cassandraJmx: 7199,
  mongodb: 27017,
} as const;

export const clientPort = (role: ClusterRole): number => CLUSTER_PORTS[role];

/** `ip` invocations (argv after `ip`) that create the bridge and one host. Each is idempotent only as a whole plan. */
export function bridgeCommands(): string[][] {
  return [
    ['link', 'add', BRIDGE, 'type', 'bridge'],
    ['addr', 'add', `${BRIDGE_ADDRESS}/${PREFIX_LENGTH}`, 'dev', BRIDGE],
    ['link', 'set', BRIDGE, 'up'],
  ];
}

export function hostCommands(host: ClusterHost): string[][] {
  const ns = host.namespace;
  return [
    ['netns', 'add', ns],
    // the host side keeps the namespace's name (≤ 15 characters), the inside is eth0
    ['link', 'add', ns, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns],
    ['link', 'set', ns, 'master', BRIDGE],
    ['link', 'set', ns, 'up'],
    ['-n', ns, 'addr', 'add', `${host.address}/${PREFIX_LENGTH}`, 'dev', 'eth0'],
    ['-n', ns, 'link', 'set', 'lo', 'up'],
    ['-n', ns, 'link', 'set', 'eth0', 'up'],
  ];
}

/** The host's link to the bridge down (isolated: no peer and no client reaches it, it reaches none) or up. */
export function linkCommand(host: ClusterHost, state: 'up' | 'down'): string[] {
  return ['link', 'set', host.namespace, state];
}

/** Our namespaces among `ip netns list` output (`name (id: 3)` lines). */
export function ownNamespaces(ipNetnsList: string): string[] {
  return ipNetnsList
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name.startsWith(NAME_PREFIX));
}

/** The cluster's host, by name (`kafka-2`) or address; undefined when it has none. */
export function findHost(
  nameOrAddress: string,
  hosts: readonly ClusterHost[] = clusterHosts(),
): ClusterHost | undefined {
  return hosts.find(
    (h) => h.name === nameOrAddress || h.address === nameOrAddress || h.namespace === nameOrAddress,
  );
}
