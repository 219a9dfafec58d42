import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { topicNames, topics } from '@mw/contracts';
import { types } from 'cassandra-driver';
import {
  cassandraQueryOptions,
  cassandraTables,
  composeShardInitScript,
  composeShards,
  orderZones,
  shardingTable,
  topicPartitioning,
} from '@mw/persistence';

/**
 * docker-compose.sharded.yml (issue #20, ADR 0010) cannot run here (no Docker engine): its
 * structure, the generated init script, the ADR's table and the Kafka keys are checked instead.
 */
const root = join(__dirname, '../../..');
interface Service {
  image?: string;
  command?: string[] | string;
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string };
  profiles?: string[];
  volumes?: string[];
}
const tags = [{ tag: '!override', collection: 'map' as const, resolve: (m: unknown) => m }];
const read = (f: string) =>
  parse(readFileSync(join(root, f), 'utf8'), { merge: true, customTags: tags }) as {
    services: Record<string, Service>;
  };
const base = read('docker-compose.yml').services;
const overlay = read('docker-compose.sharded.yml').services;
/** What compose runs: the base service with the overlay's keys on top (environment merged, the rest replaced). */
const merged = (name: string): Service => {
  const b = base[name] ?? {};
  const o = overlay[name] ?? {};
  return { ...b, ...o, environment: { ...(b.environment ?? {}), ...(o.environment ?? {}) } };
};
const running = [...new Set([...Object.keys(base), ...Object.keys(overlay)])].filter(
  (n) => !merged(n).profiles?.length,
);
const apps = ['catalog', 'catalog-projector', 'inventory', 'carts', 'orders'];
const brokers = 'kafka:9092,kafka-2:9092,kafka-3:9092';

describe('docker-compose.sharded.yml', () => {
  it('runs a config server replica set, two 3-member shard replica sets with small caches, and mongos', () => {
    const members = (set: string) =>
      running.filter((n) => JSON.stringify(merged(n).command ?? '').includes(`"--replSet","${set}"`));
    expect(members('cfg')).toHaveLength(3);
    for (const n of members('cfg')) expect(merged(n).command).toContain('--configsvr');
    for (const shard of composeShards) {
      expect(members(shard)).toHaveLength(3);
      for (const n of members(shard))
        expect(merged(n).command).toEqual(
          expect.arrayContaining(['--shardsvr', '--wiredTigerCacheSizeGB', '0.25', '--setParameter', 'transactionLifetimeLimitSeconds=5']),
        );
    }
    expect(merged('mongos').command).toEqual(
      expect.arrayContaining(['mongos', '--configdb', 'cfg/cfg-1:27019,cfg-2:27019,cfg-3:27019']),
    );
    // the base file's unsharded replica set does not start
    for (const n of ['mongodb', 'mongodb-2', 'mongodb-3']) expect(running).not.toContain(n);
  });

  it('initialises each replica set with all its members', () => {
    for (const [first, set, port] of [
      ['cfg-1', 'cfg', 27019],
      ['shard1-1', 'shard1', 27018],
      ['shard2-1', 'shard2', 27018],
    ] as const) {
      const init = JSON.stringify(merged(first).healthcheck?.test);
      expect(init).toContain(`rs.initiate({_id: '${set}'`);
      for (const i of [1, 2, 3]) expect(init).toContain(`${set}-${i}:${port}`);
    }
  });

  it('points every service at mongos, all Cassandra nodes and all brokers by environment only', () => {
    for (const app of apps) {
      const env = merged(app).environment ?? {};
      const row = {
        app,
        kafka: env['KAFKA_BROKERS'],
        mongo: env['MONGO_URL'],
        cassandra: env['CASSANDRA_CONTACT_POINTS'],
      };
      expect(row).toEqual({
        app,
        kafka: brokers,
        mongo: 'MONGO_URL' in (base[app]?.environment ?? {}) ? 'mongodb://mongos:27017' : undefined,
        cassandra:
          'CASSANDRA_CONTACT_POINTS' in (base[app]?.environment ?? {})
            ? 'cassandra:9042,cassandra-2:9042,cassandra-3:9042'
            : undefined,
      });
      expect({ app, rf: env['KAFKA_REPLICATION_FACTOR'], isr: env['KAFKA_MIN_INSYNC_REPLICAS'] }).toEqual({
        app,
        rf: 3,
        isr: 2,
      });
      if (env['CASSANDRA_CONTACT_POINTS'])
        expect({ app, rf: env['CASSANDRA_REPLICATION_FACTOR'] }).toEqual({ app, rf: 3 });
      // the same image as the base file: no build or command changes
      expect(
        overlay[app] && Object.keys(overlay[app]).filter((k) => !['environment', 'depends_on'].includes(k)),
      ).toEqual([]);
      const deps = merged(app).depends_on ?? {};
      expect({ app, mongodb: 'mongodb' in deps }).toEqual({ app, mongodb: false });
      if (env['MONGO_URL'])
        expect({ app, init: deps['mongo-shard-init']?.condition }).toEqual({
          app,
          init: 'service_completed_successfully',
        });
    }
  });

  it('every depends_on of a running service names a running service', () => {
    for (const n of running)
      for (const dep of Object.keys(merged(n).depends_on ?? {}))
        expect({ n, dep, runs: running.includes(dep) }).toEqual({ n, dep, runs: true });
  });

  it('runs three KRaft nodes with SASL, replication 3 and min.insync.replicas 2', () => {
    const voters = '1@kafka:9093,2@kafka-2:9093,3@kafka-3:9093';
    for (const [i, n] of ['kafka', 'kafka-2', 'kafka-3'].entries()) {
      const s = merged(n);
      expect(s.environment).toMatchObject({
        KAFKA_NODE_ID: i + 1,
        KAFKA_ADVERTISED_HOST: n,
        KAFKA_CONTROLLER_QUORUM_VOTERS: voters,
        KAFKA_REPLICATION_FACTOR: 3,
        KAFKA_MIN_INSYNC_REPLICAS: 2,
      });
      expect(s.environment?.['KAFKA_ADMIN_PASSWORD']).toBe('${KAFKA_ADMIN_PASSWORD:-admin-dev-secret}');
      expect(String(s.environment?.['KAFKA_PASSWORD_ORDERS'])).toMatch(/^\$\{KAFKA_PASSWORD_ORDERS:-/);
      expect(s.volumes?.[0]).toMatch(/^kafka(-\d)?-data:/);
    }
    expect(merged('kafka-init').environment).toMatchObject({
      KAFKA_BOOTSTRAP: brokers,
      KAFKA_REPLICATION_FACTOR: 3,
      KAFKA_MIN_INSYNC_REPLICAS: 2,
    });
    const broker = readFileSync(join(root, 'tools/infra/kafka/compose-kafka.sh'), 'utf8');
    for (const v of [
      'node.id=${KAFKA_NODE_ID:-1}',
      'controller.quorum.voters=${KAFKA_CONTROLLER_QUORUM_VOTERS:-1@localhost:9093}',
      'min.insync.replicas=${KAFKA_MIN_INSYNC_REPLICAS:-1}',
      'advertised.listeners=SASL_PLAINTEXT://${KAFKA_ADVERTISED_HOST:-kafka}:9092',
    ])
      expect(broker).toContain(v);
    const init = readFileSync(join(root, 'tools/infra/kafka/compose-init.sh'), 'utf8');
    expect(init).toContain('--replication-factor "$RF" --config min.insync.replicas="$ISR"');
    expect(init).not.toContain('kafka:9092 --command-config'); // every call goes to $B, all three brokers in the overlay
  });

  it('runs three Cassandra nodes of one datacenter and keyspaces with NetworkTopologyStrategy RF 3', () => {
    const nodes = running.filter(
      (n) => (merged(n).image ?? '').startsWith('cassandra:') && n !== 'cassandra-init',
    );
    expect(nodes.sort()).toEqual(['cassandra', 'cassandra-2', 'cassandra-3']);
    for (const n of nodes)
      expect(merged(n).environment).toMatchObject({
        CASSANDRA_ENDPOINT_SNITCH: 'GossipingPropertyFileSnitch',
        CASSANDRA_DC: 'datacenter1',
        CASSANDRA_SEEDS: 'cassandra,cassandra-2',
      });
    const cql = JSON.stringify(merged('cassandra-init').command);
    expect(cql).toContain("'class': 'NetworkTopologyStrategy', 'datacenter1': 3");
    expect(cql).not.toContain('SimpleStrategy');
    for (const ks of new Set(cassandraTables.map((t) => t.keyspace))) expect(cql).toContain(ks);
    expect(merged('cassandra-init').depends_on?.['cassandra-3']?.condition).toBe('service_healthy');
  });

  it('runs every statement at LOCAL_QUORUM and the Paxos phase of every LWT at LOCAL_SERIAL (ADR 0010)', () => {
    expect(cassandraQueryOptions.consistency).toBe(types.consistencies.localQuorum);
    expect(cassandraQueryOptions.serialConsistency).toBe(types.consistencies.localSerial);
  });

  it('runs the init script generated from the shard-key table (tools/infra/mongo/compose-shard-init.js is current)', () => {
    const committed = readFileSync(join(root, 'tools/infra/mongo/compose-shard-init.js'), 'utf8');
    expect(committed).toBe(composeShardInitScript()); // regenerate: npx tsx --tsconfig tsconfig.base.json tools/infra/src/cli.ts compose-shards > tools/infra/mongo/compose-shard-init.js
    expect(merged('mongo-shard-init').command).toEqual([
      'mongosh',
      '--quiet',
      'mongodb://mongos:27017',
      '--file',
      '/mw/compose-shard-init.js',
    ]);
    expect(merged('mongo-shard-init').volumes).toContain('./tools/infra/mongo:/mw:ro');
    for (const c of shardingTable) {
      const line = `sh.shardCollection(${JSON.stringify(`${c.db}.${c.collection}`)}, ${JSON.stringify(c.key)})`;
      expect({ ns: `${c.db}.${c.collection}`, sharded: committed.includes(line) }).toEqual({
        ns: `${c.db}.${c.collection}`,
        sharded: c.key !== null,
      });
    }
    for (const z of orderZones) {
      expect(committed).toContain(`sh.addShardToZone(${JSON.stringify(z.shard)}, ${JSON.stringify(z.zone)})`);
      expect(committed).toContain(
        `{ zone: ${JSON.stringify(z.zone)}, user_id: MinKey }, { zone: ${JSON.stringify(z.zone)}, user_id: MaxKey }`,
      );
    }
    // every geozone the services are configured with has a zone range
    expect(orderZones.map((z) => z.zone).sort()).toEqual(
      String(base['orders']?.environment?.['ZONES']).split(',').sort(),
    );
  });

  it('ADR 0010 carries the shard-key table exactly', () => {
    const adr = readFileSync(join(root, 'docs/adr/0010-sharding-and-scale-out.md'), 'utf8');
    const rows = [...adr.matchAll(/^\| `([a-z_]+)\.([a-z_]+)` *\| ([^|]+) \|/gm)].map(
      (m) => `${m[1]}.${m[2]} ${m[3]!.trim()}`,
    );
    const expected = shardingTable.map(
      (c) => `${c.db}.${c.collection} ${c.key ? `\`${JSON.stringify(c.key)}\`` : 'unsharded'}`,
    );
    expect(rows).toEqual(expected);
    // … and each collection's documented scatters, as the query-shape tests accept them
    const scatters = [...adr.matchAll(/^\| `([a-z_]+)\.([a-z_]+)` .*\| ([^|]+) \|$/gm)].map((m) => `${m[1]}.${m[2]}: ${m[3]!.trim()}`);
    expect(scatters).toEqual(
      shardingTable.map(
        (c) => `${c.db}.${c.collection}: ${c.scatters.length ? c.scatters.map((x) => `${x.op} {${x.fields.join(', ')}} — ${x.from}`).join('; ') : 'none'}`,
      ),
    );
  });
});

describe('Kafka partition keys equal the owning aggregate shard keys', () => {
  it('every (topic, key field) of the registry is documented, and only those', () => {
    const registry = topicNames
      .flatMap((t) =>
        [...new Set((topics[t] as readonly { key: string }[]).map((d) => d.key))].map((k) => `${t} ${k}`),
      )
      .sort();
    expect(topicPartitioning.map((p) => `${p.topic} ${p.keyField}`).sort()).toEqual(registry);
  });

  it.each(topicPartitioning.map((p) => [`${p.topic} ${p.keyField}`, p] as const))(
    "%s is a field of its owner's shard or partition key",
    (_name, p) => {
      const [store, coll] = p.owner.split('.');
      const mongo = shardingTable.find((c) => c.db === store && c.collection === coll);
      const cassandra = cassandraTables.find((t) => t.keyspace === store && t.table === coll);
      // an unsharded collection is routed by its primary shard: its _id is the natural key
      const keyFields = mongo ? Object.keys(mongo.key ?? { _id: 1 }) : (cassandra?.partitionKey ?? []);
      expect({ owner: p.owner, field: p.shardKeyField, inKey: keyFields.includes(p.shardKeyField) }).toEqual({
        owner: p.owner,
        field: p.shardKeyField,
        inKey: true,
      });
    },
  );
});
