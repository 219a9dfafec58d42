import { initialToken, kafkaClusterOverrides } from './nodes';
import {
  BRIDGE,
  clusterHosts,
  findHost,
  hostCommands,
  identityHost,
  linkCommand,
  ownNamespaces,
  serviceHosts,
  splitCommands,
} from './topology';

describe('cluster topology plan', () => {
  const hosts = clusterHosts();

  it('has nine hosts with unique addresses in 198.18.0.0/15 and mw- names an interface can carry (≤ 15 characters)', () => {
    expect(hosts).toHaveLength(9);
    expect(new Set(hosts.map((h) => h.address)).size).toBe(9);
    for (const h of hosts) {
      expect(h.address).toMatch(/^198\.1[89]\.\d+\.\d+$/);
      expect(h.namespace.startsWith('mw-')).toBe(true);
      expect(h.namespace.length).toBeLessThanOrEqual(15);
    }
    expect(BRIDGE.startsWith('mw-')).toBe(true);
  });

  it('puts each host on the bridge with its address inside its namespace, and cuts it by its bridge-side link only', () => {
    const kafka1 = findHost('kafka-1');
    if (!kafka1) throw new Error('no kafka-1');
    const commands = hostCommands(kafka1).map((c) => c.join(' '));
    expect(commands).toContain(`link set mw-kafka-1 master ${BRIDGE}`);
    expect(commands).toContain('-n mw-kafka-1 addr add 198.18.0.11/24 dev eth0');
    expect(linkCommand(kafka1, 'down')).toEqual(['link', 'set', 'mw-kafka-1', 'down']);
    expect(linkCommand(kafka1, 'up')).toEqual(['link', 'set', 'mw-kafka-1', 'up']);
  });

  it('finds only its own namespaces in `ip netns list`', () => {
    expect(ownNamespaces('mw-kafka-1 (id: 0)\nsomeone-else (id: 1)\nmw-mongodb-3\n')).toEqual([
      'mw-kafka-1',
      'mw-mongodb-3',
    ]);
  });

  it('spaces the Cassandra tokens evenly over the Murmur3 ring', () => {
    expect([1, 2, 3].map((i) => initialToken(i, 3))).toEqual([
      '-9223372036854775808',
      '-3074457345618258603',
      '3074457345618258602',
    ]);
  });

  it('gives every broker the three voters and RF 3 with min ISR 2', () => {
    const broker = findHost('kafka-2');
    if (!broker) throw new Error('no kafka-2');
    const o = kafkaClusterOverrides(broker, hosts);
    expect(o['node.id']).toBe(2);
    expect(o['controller.quorum.voters']).toBe('1@198.18.0.11:9093,2@198.18.0.12:9093,3@198.18.0.13:9093');
    expect(o['default.replication.factor']).toBe(3);
    expect(o['min.insync.replicas']).toBe(2);
    expect(o['unclean.leader.election.enable']).toBe(false);
  });

  it('gives Keycloak and every service instance a host of its own beside the servers, with names an interface can carry', () => {
    const services = serviceHosts(['inventory-1', 'inventory-2', 'projector-2']);
    const all = [...hosts, identityHost(), ...services];
    expect(new Set(all.map((h) => h.address)).size).toBe(all.length);
    expect(services.map((h) => [h.namespace, h.address])).toEqual([
      ['mw-inventory-1', '198.18.0.51'],
      ['mw-inventory-2', '198.18.0.52'],
      ['mw-projector-2', '198.18.0.53'],
    ]);
    expect(() => serviceHosts(['catalog-projector-2'])).toThrow(/at most 12/);
    expect(() => serviceHosts(['Carts'])).toThrow(/lower-case/);
  });

  it('splits a host from its peers only, both ways, with blackhole routes (everyone else still reaches both)', () => {
    const [m1, m2, m3] = clusterHosts().filter((h) => h.role === 'mongodb');
    if (!m1 || !m2 || !m3) throw new Error('no replica set');
    expect(splitCommands(m1, [m2, m3], 'add').map((c) => c.join(' '))).toEqual([
      '-n mw-mongodb-1 route add blackhole 198.18.0.32/32',
      '-n mw-mongodb-2 route add blackhole 198.18.0.31/32',
      '-n mw-mongodb-1 route add blackhole 198.18.0.33/32',
      '-n mw-mongodb-3 route add blackhole 198.18.0.31/32',
    ]);
    expect(splitCommands(m1, [m2], 'del').map((c) => c[3])).toEqual(['del', 'del']);
  });
});
