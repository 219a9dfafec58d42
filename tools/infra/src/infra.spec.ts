import { mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  DEFAULT_OPLOG_BATCH_DELAY_MS,
  DEFAULT_PORTS,
  loadConfig,
  mongoHosts,
  parseHostPorts,
  parseMode,
  parsePort,
  parsePorts,
  parseReplWriterThreads,
  parseTimerSlack,
  DEFAULT_CASSANDRA_TIMER_SLACK_US,
  SERVER_REPL_WRITER_THREADS,
} from './config';
import { spawnSync } from 'node:child_process';
import { withTimerSlack } from './servers/timer-slack';
import { InfraError, formatError } from './errors';
import { defaultServers, parseServerNames } from './registry';
import {
  CASSANDRA_JVM17_FLAGS,
  cassandraJvmArgs,
  cassandraLayout,
  cassandraLogback,
  cassandraYaml,
  nodetoolArgs,
} from './servers/cassandra';
import { kafkaAclTable, kafkaPrincipals } from '@mw/contracts';
import {
  aclDiff,
  composeAclScript,
  kafkaCredentialEnv,
  kafkaDevPassword,
  scramFormatArgs,
  toWireAcl,
} from './servers/kafka-security';
import { heapMiB, parseJavaMajor } from './servers/jvm';
import { pinnedZipkinVersion, versionFromInfo, ZIPKIN_IMAGE, ZIPKIN_VERSION, zipkinMaxSpans, zipkinSpansEndpoint } from './servers/zipkin';
import {
  hasAvx,
  memberPorts,
  mongodArgs,
  mongoUrl,
  parseMembers,
  supervisorScript,
  unhealthyReason,
} from './servers/mongodb';
import { kafkaClusterId, kafkaLog4jProperties, kafkaServerProperties, versionFromLog } from './servers/kafka';
import {
  discoveryUrl,
  issuerFor,
  keycloakArgs,
  keycloakEnv,
  keycloakLayout,
  realmClientSecret,
  realmDemoUsers,
  realmFile,
  versionFromKeycloakLog,
} from './servers/keycloak';
import { externalEnv } from './external';
import { versionFromBuildInfo, writeLocalConfig, writeScrapeTargets } from './servers/prometheus';

const noDocker = (): boolean => false;

function parseProperties(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    map.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return map;
}

describe('config', () => {
  it('INFRA_EXTERNAL names the servers taken from the environment while the others run locally', () => {
    const cfg = (env: NodeJS.ProcessEnv) => loadConfig(env, { root: '/r', detectDocker: noDocker });
    expect(cfg({}).externalServers).toEqual([]);
    expect(cfg({ INFRA_EXTERNAL: 'cassandra, mongo,keycloak,cassandra' }).externalServers).toEqual(['cassandra', 'mongodb', 'keycloak']);
    expect(() => cfg({ INFRA_EXTERNAL: 'redis' })).toThrow(/^INFRA_EXTERNAL must list some of kafka, cassandra, mongodb, keycloak, prometheus, zipkin, got "redis"$/);
  });

  it('uses non-clashing default ports', () => {
    const cfg = loadConfig({}, { root: '/repo', detectDocker: noDocker });
    expect(cfg.ports).toEqual(DEFAULT_PORTS);
    expect(cfg.ports.kafka).toBe(19092);
    expect(cfg.ports.kafkaController).toBe(19093);
    expect(cfg.ports.cassandra).toBe(19042);
    expect(cfg.ports.cassandraStorage).toBe(17000);
    expect(cfg.ports.mongo).toBe(27217);
    expect(cfg.infraDir).toBe('/repo/.infra');
    expect(cfg.startTimeoutMs).toBe(180_000);
  });

  it('reads ports from the environment', () => {
    const cfg = loadConfig(
      { KAFKA_PORT: '29092', CASSANDRA_PORT: ' 29042 ', MONGO_PORT: '29017' },
      { root: '/r', detectDocker: noDocker },
    );
    expect(cfg.ports.kafka).toBe(29092);
    expect(cfg.ports.cassandra).toBe(29042);
    expect(cfg.ports.mongo).toBe(29017);
  });

  it.each(['abc', '0', '65536', '12.5', '-1', '9092x'])(
    'rejects KAFKA_PORT=%s naming the variable',
    (value) => {
      expect(() => parsePort({ KAFKA_PORT: value }, 'KAFKA_PORT', 19092)).toThrow(InfraError);
      expect(() => parsePort({ KAFKA_PORT: value }, 'KAFKA_PORT', 19092)).toThrow(
        /^KAFKA_PORT must be a TCP port number between 1 and 65535, got "/,
      );
    },
  );

  it('rejects a bad port through loadConfig with the variable name', () => {
    expect(() => loadConfig({ CASSANDRA_PORT: 'nine' }, { root: '/r', detectDocker: noDocker })).toThrow(
      /CASSANDRA_PORT must be a TCP port/,
    );
  });

  it('rejects two servers on the same port', () => {
    expect(() => parsePorts({ KAFKA_PORT: '27217' })).toThrow(
      /KAFKA_PORT and MONGO_PORT|MONGO_PORT and KAFKA_PORT/,
    );
  });

  it('chooses the mode from INFRA, else from Docker availability', () => {
    expect(parseMode({ INFRA: 'external' }, noDocker).mode).toBe('external');
    expect(parseMode({ INFRA: 'LOCAL' }, () => true).mode).toBe('local');
    expect(parseMode({}, () => true).mode).toBe('containers');
    expect(parseMode({}, noDocker).mode).toBe('local');
    expect(() => parseMode({ INFRA: 'docker' }, noDocker)).toThrow(
      /INFRA must be one of local\|containers\|external/,
    );
  });

  it('validates heap sizes and timeouts', () => {
    expect(loadConfig({ KAFKA_HEAP: '256M' }, { root: '/r', detectDocker: noDocker }).kafkaHeap).toBe('256m');
    expect(() => loadConfig({ CASSANDRA_HEAP: 'lots' }, { root: '/r', detectDocker: noDocker })).toThrow(
      /CASSANDRA_HEAP/,
    );
    expect(() => loadConfig({ INFRA_START_TIMEOUT: '1m' }, { root: '/r', detectDocker: noDocker })).toThrow(
      /INFRA_START_TIMEOUT/,
    );
    expect(
      loadConfig({ INFRA_START_TIMEOUT: '30' }, { root: '/r', detectDocker: noDocker }).startTimeoutMs,
    ).toBe(30_000);
  });

  it('parses external endpoints', () => {
    expect(parseHostPorts('a:1, b ,[::1]:3', 9042, 'CASSANDRA_CONTACT_POINTS')).toEqual([
      ['a', 1],
      ['b', 9042],
      ['::1', 3],
    ]);
    expect(parseHostPorts('PLAINTEXT://k:9092', 9092, 'KAFKA_BROKERS')).toEqual([['k', 9092]]);
    expect(mongoHosts('mongodb://u:p@h1:1,h2/db?replicaSet=rs0')).toEqual([
      ['h1', 1],
      ['h2', 27017],
    ]);
    expect(() => mongoHosts('http://x')).toThrow(/MONGO_URL/);
    expect(() => parseHostPorts('a:99999', 9092, 'KAFKA_BROKERS')).toThrow(/KAFKA_BROKERS/);
  });

  it('parses server names', () => {
    expect(parseServerNames([])).toEqual(['kafka', 'cassandra', 'mongodb', 'keycloak', 'prometheus', 'zipkin']);
    expect(parseServerNames(['cassandra', 'mongo,kafka', 'kafka'])).toEqual([
      'cassandra',
      'mongodb',
      'kafka',
    ]);
    expect(() => parseServerNames(['redis'])).toThrow(/unknown server "redis"/);
  });
});

describe('kafka configuration', () => {
  const props = parseProperties(
    kafkaServerProperties({
      host: '127.0.0.1',
      port: 19092,
      controllerPort: 19093,
      dataDir: '/x/.infra/kafka/data',
      adminPassword: 'admin-pw',
    }),
  );

  it('is a single KRaft node in combined mode on 127.0.0.1', () => {
    expect(props.get('process.roles')).toBe('broker,controller');
    expect(props.get('node.id')).toBe('1');
    expect(props.get('controller.quorum.voters')).toBe('1@127.0.0.1:19093');
    expect(props.get('listeners')).toBe('SASL_PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093');
    expect(props.get('advertised.listeners')).toBe('SASL_PLAINTEXT://127.0.0.1:19092');
    expect(props.get('controller.listener.names')).toBe('CONTROLLER');
    expect(props.get('log.dirs')).toBe('/x/.infra/kafka/data');
  });

  it('authenticates every client with SCRAM-SHA-512 and authorizes by ACLs only (ADR 0009)', () => {
    expect(props.get('listener.security.protocol.map')).toBe(
      'CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT',
    );
    expect(props.get('sasl.enabled.mechanisms')).toBe('SCRAM-SHA-512');
    expect(props.get('inter.broker.listener.name')).toBe('SASL_PLAINTEXT');
    expect(props.get('listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config')).toContain(
      'username="admin" password="admin-pw"',
    );
    expect(props.get('authorizer.class.name')).toBe(
      'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    );
    expect(props.get('allow.everyone.if.no.acl.found')).toBe('false');
    expect(props.get('super.users')).toBe('User:admin;User:ANONYMOUS');
  });

  it("formats the storage with one SCRAM credential per principal and exports every password but the admin's", () => {
    const args = scramFormatArgs();
    for (const p of kafkaPrincipals)
      expect(args).toContain(`SCRAM-SHA-512=[name=${p},password=${kafkaDevPassword(p)}]`);
    const env = kafkaCredentialEnv();
    expect(env).toMatchObject({
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_USERNAME: 'test',
      KAFKA_PASSWORD_CATALOG_PROJECTOR: kafkaDevPassword('catalog-projector'),
    });
    expect(Object.values(env)).not.toContain(kafkaDevPassword('admin'));
  });

  it('gives the compose kafka-init job the same table (tools/infra/kafka/compose-acls.sh is current)', () => {
    const committed = readFileSync(join(__dirname, '../kafka/compose-acls.sh'), 'utf8');
    expect(committed).toBe(composeAclScript()); // regenerate: tsx tools/infra/src/cli.ts compose-acls > tools/infra/kafka/compose-acls.sh
  });

  it('makes the ACLs exactly the table: adds what is missing, removes what the table no longer has', () => {
    const wanted = kafkaAclTable().map(toWireAcl);
    const stale = { ...toWireAcl(kafkaAclTable()[0]!), principal: 'User:intruder' };
    const { add, remove } = aclDiff([...wanted.slice(1), stale], wanted);
    expect(add).toEqual([wanted[0]]);
    expect(remove).toEqual([stale]);
    expect(aclDiff(wanted, wanted)).toEqual({ add: [], remove: [] });
  });

  it('replicates internal topics once and starts groups without delay', () => {
    expect(props.get('offsets.topic.replication.factor')).toBe('1');
    expect(props.get('transaction.state.log.replication.factor')).toBe('1');
    expect(props.get('transaction.state.log.min.isr')).toBe('1');
    expect(props.get('min.insync.replicas')).toBe('1');
    expect(Number(props.get('offsets.topic.num.partitions'))).toBeLessThanOrEqual(5);
    expect(props.get('group.initial.rebalance.delay.ms')).toBe('0');
    expect(props.get('auto.create.topics.enable')).toBe('true');
  });

  it('logs to stdout only', () => {
    expect(kafkaLog4jProperties()).toContain('log4j.rootLogger=INFO, stdout');
    expect(kafkaLog4jProperties()).not.toMatch(/FileAppender/);
  });

  it('generates valid cluster ids', () => {
    const id = kafkaClusterId();
    expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    let calls = 0;
    const rigged = (size: number): Buffer =>
      calls++ === 0 ? Buffer.alloc(size, 0xff) : Buffer.alloc(size, 1);
    expect(kafkaClusterId(rigged).startsWith('-')).toBe(false);
  });

  it('reads the version the broker printed', () => {
    expect(
      versionFromLog('x\n[..] INFO Kafka version: 3.9.1 (a)\n[..] INFO Kafka version: 3.9.2 (b)\n'),
    ).toBe('3.9.2');
    expect(versionFromLog('nothing')).toBeUndefined();
  });
});

describe('cassandra configuration', () => {
  const yaml = cassandraYaml({
    host: '127.0.0.1',
    nativePort: 19042,
    storagePort: 17000,
    sslStoragePort: 17001,
    dataDir: "/x/it's/.infra/cassandra/data",
  });

  it('binds one token on 127.0.0.1 with moved ports', () => {
    expect(yaml).toMatch(/^num_tokens: 1$/m);
    expect(yaml).toMatch(/^listen_address: 127\.0\.0\.1$/m);
    expect(yaml).toMatch(/^rpc_address: 127\.0\.0\.1$/m);
    expect(yaml).toMatch(/^native_transport_port: 19042$/m);
    expect(yaml).toMatch(/^storage_port: 17000$/m);
    expect(yaml).toContain('class_name: org.apache.cassandra.locator.SimpleSeedProvider');
    expect(yaml).toContain("- seeds: '127.0.0.1:17000'");
  });

  it('keeps every directory under .infra and quotes paths for YAML', () => {
    for (const key of [
      'commitlog_directory',
      'saved_caches_directory',
      'hints_directory',
      'cdc_raw_directory',
    ]) {
      expect(yaml).toMatch(new RegExp(`^${key}: '/x/it''s/\\.infra/cassandra/data/`, 'm'));
    }
    expect(yaml).toContain("  - '/x/it''s/.infra/cassandra/data/data'");
    expect(yaml).not.toMatch(/\t/);
  });

  it('is valid YAML with the structure Cassandra expects', () => {
    const doc = parseYaml(yaml) as Record<string, unknown>;
    expect(doc['num_tokens']).toBe(1);
    expect(doc['native_transport_port']).toBe(19042);
    expect(doc['data_file_directories']).toEqual(["/x/it's/.infra/cassandra/data/data"]);
    expect(doc['seed_provider']).toEqual([
      {
        class_name: 'org.apache.cassandra.locator.SimpleSeedProvider',
        parameters: [{ seeds: '127.0.0.1:17000' }],
      },
    ]);
  });

  it('acknowledges a write only after its commit-log fsync: batch by default, group (15 ms) on request, never periodic', () => {
    const doc = parseYaml(yaml) as Record<string, unknown>;
    expect(doc['commitlog_sync']).toBe('batch');
    const group = parseYaml(
      cassandraYaml({
        host: '127.0.0.1',
        nativePort: 1,
        storagePort: 2,
        sslStoragePort: 3,
        dataDir: '/d',
        commitlogSync: 'group',
      }),
    ) as Record<string, unknown>;
    expect(group['commitlog_sync']).toBe('group');
    expect(group['commitlog_sync_group_window']).toBe('15ms');
    expect(loadConfig({}, { root: '/r', detectDocker: noDocker }).cassandraCommitlogSync).toBe('batch');
    expect(
      loadConfig({ CASSANDRA_COMMITLOG_SYNC: 'group' }, { root: '/r', detectDocker: noDocker })
        .cassandraCommitlogSync,
    ).toBe('group');
    expect(() =>
      loadConfig({ CASSANDRA_COMMITLOG_SYNC: 'periodic' }, { root: '/r', detectDocker: noDocker }),
    ).toThrow(/CASSANDRA_COMMITLOG_SYNC must be batch or group/);
  });

  it('runs lightweight transactions on Paxos v1 unless CASSANDRA_PAXOS_VARIANT=v2 (ADR 0015 §17)', () => {
    expect((parseYaml(yaml) as Record<string, unknown>)['paxos_variant']).toBe('v1');
    const v2 = parseYaml(
      cassandraYaml({ host: '127.0.0.1', nativePort: 1, storagePort: 2, sslStoragePort: 3, dataDir: '/d', paxosVariant: 'v2' }),
    ) as Record<string, unknown>;
    expect(v2['paxos_variant']).toBe('v2');
    const cfg = (env: NodeJS.ProcessEnv) => loadConfig(env, { root: '/r', detectDocker: noDocker });
    expect(cfg({}).cassandraPaxosVariant).toBe('v1');
    expect(cfg({ CASSANDRA_PAXOS_VARIANT: ' v2 ' }).cassandraPaxosVariant).toBe('v2');
    expect(() => cfg({ CASSANDRA_PAXOS_VARIANT: 'v3' })).toThrow(/CASSANDRA_PAXOS_VARIANT must be v1 or v2, got "v3"/);
  });

  it('writes logs to the log dir and stdout', () => {
    const xml = cassandraLogback();
    expect(xml).toContain('${cassandra.logdir}/system.log');
    expect(xml).toContain('ConsoleAppender');
  });

  it('passes the JDK 17 module flags, jamm agent and local-only JMX', () => {
    const args = cassandraJvmArgs({
      layout: cassandraLayout('/x/.infra'),
      heap: '1g',
      jmxPort: 17199,
      jammJar: '/x/.infra/cassandra/lib/jamm-0.4.0.jar',
    });
    expect(args).toEqual(expect.arrayContaining([...CASSANDRA_JVM17_FLAGS]));
    expect(args).toContain('--add-opens=java.base/sun.nio.ch=ALL-UNNAMED');
    expect(args).toContain('-javaagent:/x/.infra/cassandra/lib/jamm-0.4.0.jar');
    expect(args).toContain('-Dcassandra.jmx.local.port=17199');
    expect(args).toContain('-Dcassandra.config=file:///x/.infra/cassandra/config/cassandra.yaml');
    expect(args).toContain('-Xmx1g');
    expect(args).toContain('-Xms256m');
    expect(args.at(-1)).toBe('/x/.infra/cassandra/lib/*');
  });

  it("runs nodetool from the node's jars against its local JMX port, with the module flags and no agent", () => {
    const args = nodetoolArgs(cassandraLayout('/x/.infra'), 17199, ['compactionstats']);
    expect(args).toContain('--add-opens=java.base/sun.nio.ch=ALL-UNNAMED');
    expect(args.some((a) => a.startsWith('-javaagent') || a.startsWith('-Xm'))).toBe(false);
    expect(args).toContain('-Dlogback.configurationFile=file:///x/.infra/cassandra/config/logback.xml');
    expect(args.slice(-8)).toEqual(['-cp', '/x/.infra/cassandra/lib/*', 'org.apache.cassandra.tools.NodeTool', '-h', '127.0.0.1', '-p', '17199', 'compactionstats']);
  });
});

describe('cassandra timer slack (ADR 0015 §16)', () => {
  const run = (cmd: { command: string; args: readonly string[] }) => {
    const r = spawnSync(cmd.command, [...cmd.args], { encoding: 'utf8', timeout: 30_000 });
    expect(r.error).toBeUndefined();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return r.stdout.trim();
  };
  // the slack this process runs with: what a command not wrapped inherits
  const inherited = readFileSync('/proc/self/timerslack_ns', 'utf8').trim();

  it('is 1 ms unless CASSANDRA_TIMER_SLACK_US says otherwise; 0 leaves the kernel default; a bad value names the variable', () => {
    expect(DEFAULT_CASSANDRA_TIMER_SLACK_US).toBe(1000);
    expect(parseTimerSlack({})).toBe(1000);
    expect(parseTimerSlack({ CASSANDRA_TIMER_SLACK_US: '0' })).toBe(0);
    expect(parseTimerSlack({ CASSANDRA_TIMER_SLACK_US: ' 250 ' })).toBe(250);
    expect(loadConfig({}, { root: '/r', detectDocker: noDocker }).cassandraTimerSlackUs).toBe(1000);
    for (const bad of ['-1', '1.5', '100001', 'fast']) {
      expect(() => parseTimerSlack({ CASSANDRA_TIMER_SLACK_US: bad })).toThrow(
        /CASSANDRA_TIMER_SLACK_US must be a whole number of microseconds from 0 to 100000/,
      );
    }
  });

  it('runs the server with that slack on every thread it starts, under the same pid', () => {
    const probe = [
      'import os, threading',
      'out = []',
      "t = threading.Thread(target=lambda: out.append(open(f'/proc/{threading.get_native_id()}/timerslack_ns').read().strip()))",
      't.start(); t.join()',
      "print(os.getpid(), open('/proc/self/timerslack_ns').read().strip(), out[0])",
    ].join('\n');
    const cmd = withTimerSlack({ command: 'python3', args: ['-c', probe] }, 1000);
    const r = spawnSync(cmd.command, [...cmd.args], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).toBe('');
    const [pid, main, thread] = r.stdout.trim().split(' ');
    expect(Number(pid)).toBe(r.pid); // the launcher execs the server: the pid file names the server
    expect(main).toBe('1000000');
    expect(thread).toBe('1000000');
    expect(run(withTimerSlack({ command: 'cat', args: ['/proc/self/timerslack_ns'] }, 250))).toBe('250000');
  });

  it('leaves the command alone at 0', () => {
    const cmd = { command: 'cat', args: ['/proc/self/timerslack_ns'] };
    expect(withTimerSlack(cmd, 0)).toBe(cmd);
    expect(run(cmd)).toBe(inherited);
  });
});

describe('helpers', () => {
  it('parses java -version output', () => {
    expect(parseJavaMajor('openjdk version "17.0.15" 2025-04-15')).toBe(17);
    expect(parseJavaMajor('java version "1.8.0_392"')).toBe(8);
    expect(parseJavaMajor('openjdk version "21" 2023-09-19')).toBe(21);
    expect(parseJavaMajor('bash: java: command not found')).toBeUndefined();
  });

  it('converts heap sizes', () => {
    expect(heapMiB('1g')).toBe(1024);
    expect(heapMiB('512m')).toBe(512);
    expect(heapMiB('2048k')).toBe(2);
  });

  it('formats errors on one line unless DEBUG=1', () => {
    const err = new InfraError('port 19092 is already in use', ['tail line']);
    expect(formatError(err, {})).toBe('port 19092 is already in use\ntail line');
    expect(formatError(new Error('boom\nat x'), {})).toBe('boom');
    expect(formatError(new Error('boom'), { DEBUG: '1' })).toContain('at ');
  });
});

describe('mongodb replica set', () => {
  it('has 3 members by default, 1 on request, and refuses an even count', () => {
    expect(parseMembers({})).toBe(3);
    expect(parseMembers({ MONGO_MEMBERS: '1' })).toBe(1);
    expect(() => parseMembers({ MONGO_MEMBERS: '2' })).toThrow(/MONGO_MEMBERS must be 1, 3, 5 or 7/);
    expect(() => parseMembers({ MONGO_MEMBERS: 'three' })).toThrow(InfraError);
  });

  it('connects clients to every member by replica-set name', () => {
    expect(memberPorts(27217, 3)).toEqual([27217, 27218, 27219]);
    expect(mongoUrl('127.0.0.1', [27217, 27218, 27219])).toBe(
      'mongodb://127.0.0.1:27217,127.0.0.1:27218,127.0.0.1:27219/?replicaSet=rs0',
    );
    expect(mongoHosts(mongoUrl('127.0.0.1', [1, 2]))).toEqual([['127.0.0.1', 1], ['127.0.0.1', 2]]);
  });

  it('detects AVX from /proc/cpuinfo flags', () => {
    expect(hasAvx('processor : 0\nflags\t\t: fpu sse4_2 avx avx2 rdrand\n')).toBe(true);
    expect(hasAvx('processor : 0\nflags\t\t: fpu sse4_2 avx512f\n')).toBe(false);
    expect(hasAvx('processor : 0\nflags\t\t: fpu sse4_2\n')).toBe(false);
  });

  it('runs each member on loopback with its own data, log and a small cache', () => {
    const args = mongodArgs({ host: '127.0.0.1', port: 27218, dbPath: '/d/1', logPath: '/l/1.log' });
    expect(args.join(' ')).toContain('--replSet rs0 --bind_ip 127.0.0.1 --port 27218 --dbpath /d/1 --logpath /l/1.log');
    expect(args.join(' ')).toContain('--wiredTigerCacheSizeGB 0.25');
    // a SIGKILLed client's open transaction is reaped in seconds, not a minute (ADR 0015 §7)
    expect(args.join(' ')).toContain('--setParameter transactionLifetimeLimitSeconds=5');
    expect(args.join(' ')).not.toContain('oplogBatchDelayMillis');
  });

  it("lets a secondary's oplog batch fill for MONGO_OPLOG_BATCH_DELAY_MS (ADR 0015 §8)", () => {
    const args = mongodArgs({ host: '127.0.0.1', port: 27218, dbPath: '/d/1', logPath: '/l/1.log', oplogBatchDelayMs: 6 });
    expect(args.join(' ')).toContain('--setParameter oplogBatchDelayMillis=6');
    const at = (env: NodeJS.ProcessEnv) => loadConfig(env, { root: '/r', detectDocker: () => false }).mongoOplogBatchDelayMs;
    expect(at({})).toBe(DEFAULT_OPLOG_BATCH_DELAY_MS);
    expect(at({ MONGO_OPLOG_BATCH_DELAY_MS: '0' })).toBe(0);
    expect(at({ MONGO_OPLOG_BATCH_DELAY_MS: '12' })).toBe(12);
    expect(() => at({ MONGO_OPLOG_BATCH_DELAY_MS: '-1' })).toThrow(/MONGO_OPLOG_BATCH_DELAY_MS must be a whole number of milliseconds from 0 to 1000/);
    expect(() => at({ MONGO_OPLOG_BATCH_DELAY_MS: '2.5' })).toThrow(/MONGO_OPLOG_BATCH_DELAY_MS/);
    expect(() => at({ MONGO_OPLOG_BATCH_DELAY_MS: '5000' })).toThrow(/MONGO_OPLOG_BATCH_DELAY_MS/);
  });

  it('applies a secondary\'s batches with as many writer threads as the host has cores, or MONGO_REPL_WRITER_THREADS (ADR 0015 §15)', () => {
    const base = { host: '127.0.0.1', port: 27218, dbPath: '/d/1', logPath: '/l/1.log' };
    expect(mongodArgs({ ...base, replWriterThreads: 2 }).join(' ')).toContain('--setParameter replWriterThreadCount=2');
    expect(mongodArgs(base).join(' ')).not.toContain('replWriterThreadCount');
    expect(parseReplWriterThreads({}, 2)).toBe(2);
    expect(parseReplWriterThreads({}, 1)).toBe(1);
    expect(parseReplWriterThreads({}, 64)).toBe(SERVER_REPL_WRITER_THREADS);
    expect(parseReplWriterThreads({ MONGO_REPL_WRITER_THREADS: '' }, 2)).toBe(2);
    const at = (env: NodeJS.ProcessEnv) => loadConfig(env, { root: '/r', detectDocker: () => false }).mongoReplWriterThreads;
    expect(at({})).toBe(Math.min(SERVER_REPL_WRITER_THREADS, availableParallelism()));
    expect(at({ MONGO_REPL_WRITER_THREADS: '1' })).toBe(1);
    expect(at({ MONGO_REPL_WRITER_THREADS: ' 256 ' })).toBe(256);
    for (const bad of ['0', '257', '-2', '1.5', 'two'])
      expect(() => at({ MONGO_REPL_WRITER_THREADS: bad })).toThrow(/MONGO_REPL_WRITER_THREADS must be a whole number of threads from 1 to 256/);
  });

  it('supervises: a SIGKILLed member restarts, any other exit stops the set', () => {
    const script = supervisorScript("/opt/it's/mongod", [
      ['--port', '1', '--dbpath', '/a'],
      ['--port', '2', '--dbpath', '/b b'],
    ]);
    expect(script).toContain(`'/opt/it'\\''s/mongod' "$@"`);
    expect(script).toContain(`member 1 '--port' '1' '--dbpath' '/a' &`);
    expect(script).toContain(`member 2 '--port' '2' '--dbpath' '/b b' &`);
    expect(script).toMatch(/if \[ "\$code" -ne 137 \]; then .*return "\$code"; fi/);
    expect(script).toContain('wait -n');
  });

  it('is healthy with exactly one primary and every other member secondary', () => {
    const m = (stateStr: string, i: number) => ({ name: `h:${i}`, stateStr });
    expect(unhealthyReason(['PRIMARY', 'SECONDARY', 'SECONDARY'].map(m), 3)).toBeNull();
    expect(unhealthyReason(['PRIMARY'].map(m), 1)).toBeNull();
    expect(unhealthyReason(['PRIMARY', 'STARTUP2', 'SECONDARY'].map(m), 3)).toBe('h:0 PRIMARY, h:1 STARTUP2, h:2 SECONDARY');
    expect(unhealthyReason(['SECONDARY', 'SECONDARY', 'SECONDARY'].map(m), 3)).toMatch(/SECONDARY/);
    expect(unhealthyReason(['PRIMARY', 'SECONDARY'].map(m), 3)).toMatch(/^2 of 3 members/);
  });
});

describe('keycloak', () => {
  const root = join(__dirname, '..', '..', '..');

  it('listens on 18080 with its management interface on 18081, both movable and checked for clashes', () => {
    const cfg = loadConfig({}, { root: '/r', detectDocker: noDocker });
    expect(cfg.ports.keycloak).toBe(18080);
    expect(cfg.ports.keycloakManagement).toBe(18081);
    expect(cfg.keycloakHeap).toBe('512m');
    expect(loadConfig({ KEYCLOAK_PORT: '28080' }, { root: '/r', detectDocker: noDocker }).ports.keycloak).toBe(28080);
    expect(() => parsePorts({ KEYCLOAK_MANAGEMENT_PORT: '18080' })).toThrow(/KEYCLOAK_MANAGEMENT_PORT and KEYCLOAK_PORT|KEYCLOAK_PORT and KEYCLOAK_MANAGEMENT_PORT/);
    expect(() => loadConfig({ KEYCLOAK_PORT: 'http' }, { root: '/r', detectDocker: noDocker })).toThrow(/^KEYCLOAK_PORT must be a TCP port/);
  });

  it('runs kc.sh start-dev on loopback with an in-memory database, the realm import, health and a pinned issuer', () => {
    const args = keycloakArgs({ host: '127.0.0.1', port: 18080, managementPort: 18081 });
    expect(args[0]).toBe('start-dev');
    expect(args).toEqual(
      expect.arrayContaining([
        '--db=dev-mem',
        '--db-pool-min-size=1',
        '--import-realm',
        '--http-host=127.0.0.1',
        '--http-port=18080',
        '--http-management-port=18081',
        '--health-enabled=true',
        '--hostname=http://127.0.0.1:18080',
      ]),
    );
    expect(keycloakEnv('512m')['JAVA_OPTS_KC_HEAP']).toContain('-Xmx512m');
    expect(keycloakLayout('/x/.infra').importDir).toBe('/x/.infra/keycloak/dist/data/import');
    expect(issuerFor('http://127.0.0.1:18080/')).toBe('http://127.0.0.1:18080/realms/mobile-world');
    expect(discoveryUrl('http://h/realms/mobile-world')).toBe('http://h/realms/mobile-world/.well-known/openid-configuration');
  });

  it('reads the version Keycloak printed', () => {
    expect(
      versionFromKeycloakLog([
        '2026-01-01 INFO  [io.quarkus] (main) Keycloak 26.0.7 on JVM (powered by Quarkus 3.15.1) started in 21.2s.',
        'later line',
      ]),
    ).toBe('26.0.7');
    expect(versionFromKeycloakLog(['nothing'])).toBeUndefined();
  });

  it('takes OIDC_ISSUER (and OIDC_AUDIENCE) from the environment in external mode', () => {
    const cfg = loadConfig(
      { INFRA: 'external', OIDC_ISSUER: 'https://id.example/realms/mobile-world/' },
      { root: '/r', detectDocker: noDocker },
    );
    expect(externalEnv(cfg, ['keycloak'])).toEqual({
      OIDC_ISSUER: 'https://id.example/realms/mobile-world',
      OIDC_AUDIENCE: 'mobile-world-api',
    });
    expect(() => externalEnv(loadConfig({ INFRA: 'external' }, { root: '/r', detectDocker: noDocker }), ['keycloak'])).toThrow(
      /INFRA=external needs OIDC_ISSUER/,
    );
  });

  describe('realm file', () => {
    interface Client {
      clientId: string;
      publicClient?: boolean;
      bearerOnly?: boolean;
      standardFlowEnabled?: boolean;
      directAccessGrantsEnabled?: boolean;
      serviceAccountsEnabled?: boolean;
      implicitFlowEnabled?: boolean;
      redirectUris?: string[];
      webOrigins?: string[];
      attributes?: Record<string, string>;
      defaultClientScopes?: string[];
      protocolMappers?: { protocolMapper: string; config: Record<string, string> }[];
    }
    const realm = JSON.parse(readFileSync(realmFile(root), 'utf8')) as {
      realm: string;
      sslRequired: string;
      accessTokenLifespan: number;
      defaultRole: { name: string };
      roles: { realm: { name: string; composites?: { realm?: string[] } }[] };
      clients: Client[];
      users: { id: string; username: string; serviceAccountClientId?: string; realmRoles?: string[] }[];
    };
    const client = (id: string): Client => {
      const found = realm.clients.find((c) => c.clientId === id);
      if (!found) throw new Error(`client ${id} missing`);
      return found;
    };
    const audienceMappers = (c: Client): string[] =>
      (c.protocolMappers ?? [])
        .filter((m) => m.protocolMapper === 'oidc-audience-mapper' && m.config['access.token.claim'] === 'true')
        .map((m) => m.config['included.client.audience'] ?? '');

    it('is realm mobile-world: no TLS required locally, 15-minute access tokens, customer for new users', () => {
      expect(realm.realm).toBe('mobile-world');
      expect(realm.sslRequired).toBe('none');
      expect(realm.accessTokenLifespan).toBe(900);
      const names = realm.roles.realm.map((r) => r.name);
      expect(names).toEqual(expect.arrayContaining(['customer', 'catalog_manager', 'stock_manager', 'support', 'operator']));
      const defaults = realm.roles.realm.find((r) => r.name === realm.defaultRole.name);
      expect(defaults?.composites?.realm).toContain('customer');
    });

    it('names the API audience with a client that has no flow', () => {
      expect(client('mobile-world-api')).toMatchObject({
        bearerOnly: true,
        standardFlowEnabled: false,
        directAccessGrantsEnabled: false,
        implicitFlowEnabled: false,
        serviceAccountsEnabled: false,
      });
    });

    it('has a public web client: code flow with PKCE S256, password grant, local redirects, the API audience', () => {
      const web = client('mobile-world-web');
      expect(web).toMatchObject({ publicClient: true, standardFlowEnabled: true, directAccessGrantsEnabled: true, implicitFlowEnabled: false });
      expect(web.attributes?.['pkce.code.challenge.method']).toBe('S256');
      expect(web.redirectUris?.sort()).toEqual(['http://127.0.0.1:*', 'http://localhost:*']);
      // the web app's default origin (npm start, nx serve web) may call the token endpoint; another port is added at run time
      expect(web.webOrigins).toEqual(['+', 'http://127.0.0.1:4400', 'http://localhost:4400']);
      expect(web.defaultClientScopes).toEqual(expect.arrayContaining(['roles', 'basic']));
      expect(audienceMappers(web)).toEqual(['mobile-world-api']);
    });

    it('has a confidential ops client whose service account is an operator, with the API audience', () => {
      const ops = client('mobile-world-ops');
      expect(ops).toMatchObject({ publicClient: false, serviceAccountsEnabled: true, standardFlowEnabled: false, directAccessGrantsEnabled: false });
      expect(realmClientSecret(root, 'mobile-world-ops')).toBeTruthy();
      expect(ops.defaultClientScopes).toEqual(expect.arrayContaining(['roles', 'basic']));
      expect(audienceMappers(ops)).toEqual(['mobile-world-api']);
      expect(realm.users.find((u) => u.serviceAccountClientId === 'mobile-world-ops')?.realmRoles).toEqual(['operator']);
    });

    it('has the six demo users with distinct fixed ids and their roles', () => {
      const users = realmDemoUsers(root);
      expect(users.map((u) => [u.username, u.roles])).toEqual([
        ['alice', ['customer']],
        ['bob', ['customer']],
        ['carol', ['catalog_manager']],
        ['stan', ['stock_manager']],
        ['sue', ['support']],
        ['otto', ['operator']],
      ]);
      const ids = realm.users.map((u) => u.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(users.every((u) => u.password === 'demo')).toBe(true);
    });
  });
});

describe('prometheus', () => {
  const root = join(__dirname, '..', '..', '..');

  it('PROMETHEUS_PORT (default 19090) and PROMETHEUS_SCRAPE_INTERVAL are validated once, naming the variable', () => {
    expect(loadConfig({}, { root, detectDocker: noDocker }).ports.prometheus).toBe(19090);
    expect(loadConfig({}, { root, detectDocker: noDocker }).prometheusScrapeInterval).toBe('15s');
    expect(loadConfig({ PROMETHEUS_SCRAPE_INTERVAL: '1s' }, { root, detectDocker: noDocker }).prometheusScrapeInterval).toBe('1s');
    expect(() => parsePorts({ PROMETHEUS_PORT: '18080' })).toThrow(/PROMETHEUS_PORT and KEYCLOAK_PORT|KEYCLOAK_PORT and PROMETHEUS_PORT/);
    for (const bad of ['15', '500ms', '10m', 'soon'])
      expect(() => loadConfig({ PROMETHEUS_SCRAPE_INTERVAL: bad }, { root, detectDocker: noDocker })).toThrow(
        /^PROMETHEUS_SCRAPE_INTERVAL must be a duration between 1s and 5m/,
      );
  });

  it('scrapes the services from the targets file with the operator client of the realm, and loads the committed rules', () => {
    const cfg = loadConfig({ PROMETHEUS_PORT: '29090', KEYCLOAK_PORT: '28080' }, { root, detectDocker: noDocker });
    const dir = mkdtempSync(join(tmpdir(), 'prom-'));
    const layout = writeLocalConfig(cfg, dir, { ruleFile: '/rules/alerts.yml', targetsDir: '/t' });
    const config = parseYaml(readFileSync(layout.configFile, 'utf8')) as {
      rule_files: string[];
      scrape_configs: { job_name: string; oauth2?: Record<string, string>; file_sd_configs?: { files: string[] }[]; static_configs?: { targets: string[] }[] }[];
    };
    expect(config.rule_files).toEqual(['/rules/alerts.yml']);
    const services = config.scrape_configs.find((c) => c.job_name === 'services');
    expect(services?.oauth2).toEqual({
      client_id: 'mobile-world-ops',
      client_secret: realmClientSecret(root, 'mobile-world-ops'),
      token_url: 'http://127.0.0.1:28080/realms/mobile-world/protocol/openid-connect/token',
    });
    expect(services?.file_sd_configs?.[0]?.files).toEqual(['/t/*.json']);
    expect(config.scrape_configs.find((c) => c.job_name === 'prometheus')?.static_configs?.[0]?.targets).toEqual(['127.0.0.1:29090']);
    // an empty services file the first time; npm start's targets replace it
    expect(JSON.parse(readFileSync(layout.servicesFile, 'utf8'))).toEqual([]);
    writeScrapeTargets(dir, [{ job: 'orders', address: '127.0.0.1:3004' }]);
    expect(JSON.parse(readFileSync(layout.servicesFile, 'utf8'))).toEqual([{ targets: ['127.0.0.1:3004'], labels: { job: 'orders' } }]);
    writeLocalConfig(cfg, dir, { ruleFile: '/rules/alerts.yml', targetsDir: '/t' });
    expect(JSON.parse(readFileSync(layout.servicesFile, 'utf8'))).toHaveLength(1);
  });

  it('the token comes from OIDC_ISSUER when Keycloak is external', () => {
    const cfg = loadConfig(
      { INFRA_EXTERNAL: 'keycloak', OIDC_ISSUER: 'https://id.example.com/realms/mobile-world/' },
      { root, detectDocker: noDocker },
    );
    const dir = mkdtempSync(join(tmpdir(), 'prom-'));
    const text = readFileSync(writeLocalConfig(cfg, dir, { ruleFile: 'r', targetsDir: 't' }).configFile, 'utf8');
    expect(text).toContain('token_url: https://id.example.com/realms/mobile-world/protocol/openid-connect/token');
  });

  it('is part of every default run, except INFRA=external without PROMETHEUS_URL', () => {
    const all = ['kafka', 'cassandra', 'mongodb', 'keycloak', 'prometheus', 'zipkin'];
    expect(defaultServers(loadConfig({ INFRA: 'local' }, { root }))).toEqual(all);
    expect(defaultServers(loadConfig({ INFRA: 'external' }, { root }))).toEqual(all.slice(0, 4));
    expect(defaultServers(loadConfig({ INFRA: 'external', PROMETHEUS_URL: 'http://p:9090' }, { root }))).toEqual(all.slice(0, 5));
    expect(defaultServers(loadConfig({ INFRA: 'external', PROMETHEUS_URL: 'http://p:9090', ZIPKIN_URL: 'http://z:9411' }, { root }))).toEqual(all);
  });

  it('reads its version from the build info', () => {
    expect(versionFromBuildInfo({ status: 'success', data: { version: '2.42.0+ds' } })).toBe('Prometheus 2.42.0+ds');
    expect(versionFromBuildInfo({})).toBeUndefined();
  });
});

describe('zipkin', () => {
  const root = join(__dirname, '..', '..', '..');
  it('runs the exec jar the committed pom pins, the same version as the image', () => {
    expect(pinnedZipkinVersion(root)).toBe(ZIPKIN_VERSION);
    expect(ZIPKIN_IMAGE).toBe(`openzipkin/zipkin:${ZIPKIN_VERSION}`);
    const compose = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
    expect(compose).toContain(`image: ${ZIPKIN_IMAGE}`);
  });

  it('has its own port (ZIPKIN_PORT, 19411 by default) that must differ from the others', () => {
    expect(loadConfig({ INFRA: 'local' }, { root }).ports.zipkin).toBe(19411);
    expect(loadConfig({ INFRA: 'local', ZIPKIN_PORT: '19511' }, { root }).ports.zipkin).toBe(19511);
    expect(() => loadConfig({ INFRA: 'local', ZIPKIN_PORT: '19090' }, { root })).toThrow(/ZIPKIN_PORT and PROMETHEUS_PORT are both 19090|PROMETHEUS_PORT and ZIPKIN_PORT are both 19090/);
  });

  it('reads its version from /info and tells the services where spans go', () => {
    expect(versionFromInfo({ zipkin: { version: '3.5.1' } })).toBe('Zipkin 3.5.1');
    expect(versionFromInfo({})).toBeUndefined();
    expect(zipkinSpansEndpoint('http://127.0.0.1:19411/')).toBe('http://127.0.0.1:19411/api/v2/spans');
  });

  it('keeps as many spans as its heap holds (4 KiB each): a traced benchmark once ran 200,000 into a 256m heap and Zipkin died', () => {
    expect(loadConfig({ INFRA: 'local' }, { root: '/r' }).zipkinHeap).toBe('512m');
    expect(zipkinMaxSpans('512m')).toBe(131_072);
    expect(zipkinMaxSpans('1g')).toBe(262_144);
    expect(zipkinMaxSpans('2048k')).toBe(1_000);
  });
});
