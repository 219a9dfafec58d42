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
export interface NetHost {
  /** `kafka-1`, `carts-2`: the host's name in logs, pid files (`.infra/cluster/<name>`) and commands. */
  readonly name: string;
  /** `mw-kafka-1`: the namespace, and the name of the veth end on the bridge. */
  readonly namespace: string;
  readonly address: string;
}

/** A server of the cluster on a host of its own. */
export interface ClusterHost extends NetHost {
  readonly role: ClusterRole;
  /** 1-based index within its role (Kafka's node.id, the replica set member's _id + 1). */
  readonly index: number;
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
/** The identity provider (Keycloak) of the cluster topology: services on it never use the single node's. */
const IDENTITY_OCTET = 41;
/** Service instances (`carts-2`…) take consecutive addresses from here, in the order they are asked for. */
const FIRST_SERVICE_OCTET = 51;
const LAST_OCTET = 254;
/** An interface name carries at most 15 characters: `mw-` + 12. */
const MAX_NAME = 15 - NAME_PREFIX.length;

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

/** Keycloak's host (ADR 0062): started by `cluster up` so that services in namespaces verify tokens without the single node. */
export function identityHost(): NetHost {
  return {
    name: 'keycloak',
    namespace: `${NAME_PREFIX}keycloak`,
    address: `${SUBNET_PREFIX}.${IDENTITY_OCTET}`,
  };
}

/**
 * One host per service instance (`inventory-1`, `carts-2`…), on the same bridge as the servers, so a
 * nemesis can cut one instance off from the brokers while it keeps running and serving HTTP.
 */
export function serviceHosts(names: readonly string[]): NetHost[] {
  if (FIRST_SERVICE_OCTET + names.length - 1 > LAST_OCTET)
    throw new Error(
      `${names.length} service hosts do not fit in ${SUBNET_PREFIX}.${FIRST_SERVICE_OCTET}-${LAST_OCTET}`,
    );
  return names.map((name, i) => {
    if (!/^[a-z0-9-]+$/.test(name) || name.length > MAX_NAME)
      throw new Error(
        `service host name "${name}": lower-case letters, digits and dashes, at most ${MAX_NAME}`,
      );
    return {
      name,
      namespace: `${NAME_PREFIX}${name}`,
      address: `${SUBNET_PREFIX}.${FIRST_SERVICE_OCTET + i}`,
    };
  });
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

export function hostCommands(host: NetHost): string[][] {
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
export function linkCommand(host: NetHost, state: 'up' | 'down'): string[] {
  return ['link', 'set', host.namespace, state];
}

/**
 * A partition between `host` and `peers` while everyone else still reaches both sides: a blackhole
 * route to each peer in the host's namespace and to the host in each peer's, so packets either way
 * are dropped silently (as a failed switch port would: connections hang until their timeouts, no
 * reset tells anybody). `add` cuts, `del` heals. No netfilter needed (tc netem is not available).
 */
export function splitCommands(host: NetHost, peers: readonly NetHost[], op: 'add' | 'del'): string[][] {
  return peers.flatMap((peer) => [
    ['-n', host.namespace, 'route', op, 'blackhole', `${peer.address}/32`],
    ['-n', peer.namespace, 'route', op, 'blackhole', `${host.address}/32`],
  ]);
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
