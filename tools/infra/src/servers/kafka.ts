/**
 * Apache Kafka 3.9 as a single KRaft node (broker + controller in one JVM), running from
 * Maven Central jars resolved by tools/infra/maven/kafka/pom.xml into .infra/kafka/lib.
 * Clients authenticate with SASL/SCRAM-SHA-512 and are authorized by ACLs (./kafka-security.ts,
 * ADR 0009); the controller listener is PLAINTEXT on the loopback address only.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import type { InfraConfig } from '../config';
import { InfraError, displayPath } from '../errors';
import { retryUntil, tailFile } from '../process';
import type { InfraContext, LaunchSpec, LocalServer } from '../types';
import { classpathOf, ensureJava, jarVersion, javaBinary, resolveMavenClasspath } from './jvm';
import {
  KAFKA_ADMIN_PRINCIPAL,
  kafkaCredentialEnv,
  kafkaDevPassword,
  kafkaSasl,
  provisionKafka,
  scramFingerprint,
  scramFormatArgs,
} from './kafka-security';

export interface KafkaLayout {
  readonly dir: string;
  readonly libDir: string;
  readonly configDir: string;
  readonly dataDir: string;
  readonly serverProperties: string;
  readonly log4jProperties: string;
  readonly clusterIdFile: string;
  /** The SCRAM principals the storage was formatted with (scramFingerprint()). */
  readonly scramFile: string;
  readonly formatLog: string;
  readonly serverLog: string;
}

export function kafkaLayout(infraDir: string): KafkaLayout {
  const dir = join(infraDir, 'kafka');
  const configDir = join(dir, 'config');
  return {
    dir,
    libDir: join(dir, 'lib'),
    configDir,
    dataDir: join(dir, 'data'),
    serverProperties: join(configDir, 'server.properties'),
    log4jProperties: join(configDir, 'log4j.properties'),
    clusterIdFile: join(dir, 'cluster.id'),
    scramFile: join(dir, 'scram.json'),
    formatLog: join(dir, 'format.log'),
    serverLog: join(dir, 'server.log'),
  };
}

export interface KafkaPropertiesOptions {
  readonly host: string;
  readonly port: number;
  readonly controllerPort: number;
  readonly dataDir: string;
  readonly nodeId?: number;
  /** Password of the `admin` principal the broker authenticates to itself with. */
  readonly adminPassword: string;
}

/**
 * server.properties for a single-node KRaft cluster (combined broker + controller). `overrides`
 * replace (or add) keys: the cluster topology's brokers are these with three voters and RF 3.
 */
export function kafkaServerProperties(
  o: KafkaPropertiesOptions,
  overrides: Readonly<Record<string, string | number | boolean>> = {},
): string {
  const nodeId = o.nodeId ?? 1;
  const props: [string, string | number | boolean][] = [
    ['process.roles', 'broker,controller'],
    ['node.id', nodeId],
    ['controller.quorum.voters', `${nodeId}@${o.host}:${o.controllerPort}`],
    ['listeners', `SASL_PLAINTEXT://${o.host}:${o.port},CONTROLLER://${o.host}:${o.controllerPort}`],
    ['advertised.listeners', `SASL_PLAINTEXT://${o.host}:${o.port}`],
    ['inter.broker.listener.name', 'SASL_PLAINTEXT'],
    ['controller.listener.names', 'CONTROLLER'],
    ['listener.security.protocol.map', 'CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT'],
    // every client authenticates (SCRAM credentials live in the cluster metadata, added at format)
    ['sasl.enabled.mechanisms', 'SCRAM-SHA-512'],
    ['sasl.mechanism.inter.broker.protocol', 'SCRAM-SHA-512'],
    [
      'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config',
      `org.apache.kafka.common.security.scram.ScramLoginModule required username="${KAFKA_ADMIN_PRINCIPAL}" password="${o.adminPassword}";`,
    ],
    // and is authorized by ACLs; nothing is allowed without one. ANONYMOUS is the broker talking to
    // its own controller over the loopback PLAINTEXT controller listener (never a client listener).
    ['authorizer.class.name', 'org.apache.kafka.metadata.authorizer.StandardAuthorizer'],
    ['allow.everyone.if.no.acl.found', false],
    ['super.users', `User:${KAFKA_ADMIN_PRINCIPAL};User:ANONYMOUS`],
    ['log.dirs', o.dataDir],
    ['metadata.log.dir', o.dataDir],
    // single node: everything replicated once, few partitions for internal topics
    ['num.partitions', 1],
    ['default.replication.factor', 1],
    ['min.insync.replicas', 1],
    ['offsets.topic.replication.factor', 1],
    ['offsets.topic.num.partitions', 3],
    ['transaction.state.log.replication.factor', 1],
    ['transaction.state.log.min.isr', 1],
    ['transaction.state.log.num.partitions', 3],
    ['group.initial.rebalance.delay.ms', 0],
    ['auto.create.topics.enable', true],
    ['delete.topic.enable', true],
    // a laptop/CI box with 2 cores: few threads, small segments, short retention
    ['num.network.threads', 2],
    ['num.io.threads', 4],
    ['num.recovery.threads.per.data.dir', 1],
    ['background.threads', 4],
    ['log.segment.bytes', 16 * 1024 * 1024],
    ['log.retention.hours', 24],
    ['log.retention.check.interval.ms', 300_000],
  ];
  const keys = new Set(props.map(([k]) => k));
  const merged = [
    ...props.map(([k, v]): [string, string | number | boolean] => [k, overrides[k] ?? v]),
    ...Object.entries(overrides).filter(([k]) => !keys.has(k)),
  ];
  return `# Generated by tools/infra (npm run infra:up) — edits are overwritten.\n${merged
    .map(([k, v]) => `${k}=${String(v)}`)
    .join('\n')}\n`;
}

/** log4j 1.x (reload4j) configuration: everything to stdout, which the CLI redirects to server.log. */
export function kafkaLog4jProperties(): string {
  return [
    '# Generated by tools/infra — stdout is redirected to .infra/kafka/server.log',
    'log4j.rootLogger=INFO, stdout',
    'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
    'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
    'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n',
    'log4j.logger.kafka=INFO',
    'log4j.logger.org.apache.kafka=INFO',
    'log4j.logger.kafka.request.logger=WARN',
    'log4j.logger.kafka.network.RequestChannel$=WARN',
    'log4j.logger.kafka.controller=INFO',
    'log4j.logger.kafka.log.LogCleaner=WARN',
    'log4j.logger.state.change.logger=WARN',
    'log4j.logger.kafka.authorizer.logger=WARN',
    '',
  ].join('\n');
}

/** A Kafka cluster id: 16 random bytes, base64url without padding, not starting with '-'. */
export function kafkaClusterId(random: (size: number) => Buffer = randomBytes): string {
  for (;;) {
    const id = random(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

export function kafkaJvmArgs(layout: KafkaLayout, heap: string): string[] {
  return [
    `-Xms${heap}`,
    `-Xmx${heap}`,
    '-XX:+UseG1GC',
    '-XX:MaxGCPauseMillis=20',
    '-XX:InitiatingHeapOccupancyPercent=35',
    '-XX:+ExplicitGCInvokesConcurrent',
    '-XX:MaxInlineLevel=15',
    '-Djava.awt.headless=true',
    '-Djava.net.preferIPv4Stack=true',
    `-Dlog4j.configuration=file:${layout.log4jProperties}`,
    `-Dkafka.logs.dir=${join(layout.dir, 'logs')}`,
    '-cp',
    classpathOf(layout.libDir),
  ];
}

/** Last "Kafka version: x" line the broker printed (AppInfoParser), if any. */
export function versionFromLog(logText: string): string | undefined {
  const matches = [...logText.matchAll(/Kafka version: (\S+)/g)];
  return matches.at(-1)?.[1];
}

function readTail(file: string, bytes: number): string {
  try {
    const size = statSync(file).size;
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    const fd = openSync(file, 'r');
    try {
      readSync(fd, buffer, 0, length, size - length);
    } finally {
      closeSync(fd);
    }
    return buffer.toString('utf8');
  } catch {
    return '';
  }
}

export async function describeCluster(
  brokers: string[],
  timeoutMs: number,
  sasl: SASLOptions = kafkaSasl(KAFKA_ADMIN_PRINCIPAL),
): Promise<{ clusterId: string; brokers: number }> {
  const kafka = new Kafka({
    clientId: 'infra-cli',
    brokers,
    sasl,
    logLevel: logLevel.NOTHING,
    connectionTimeout: Math.min(timeoutMs, 3000),
    requestTimeout: Math.min(timeoutMs, 5000),
    retry: { retries: 0 },
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return { clusterId: cluster.clusterId, brokers: cluster.brokers.length };
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

export async function warmGroupCoordinator(brokers: string[]): Promise<void> {
  // kafkajs needs its own retries here: FindCoordinator answers "not available" until it has created __consumer_offsets.
  const kafka = new Kafka({
    clientId: 'infra-cli',
    brokers,
    sasl: kafkaSasl(KAFKA_ADMIN_PRINCIPAL),
    logLevel: logLevel.NOTHING,
    retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 2000 },
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.describeGroups(['infra-readiness']);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

export function runStorageFormat(ctx: InfraContext, layout: KafkaLayout, clusterId: string): Promise<void> {
  const args = [
    '-Xmx256m',
    `-Dlog4j.configuration=file:${layout.log4jProperties}`,
    '-cp',
    classpathOf(layout.libDir),
    'kafka.tools.StorageTool',
    'format',
    '-t',
    clusterId,
    '-c',
    layout.serverProperties,
    '--ignore-formatted',
    ...scramFormatArgs(),
  ];
  const fd = openSync(layout.formatLog, 'a');
  return new Promise<void>((resolveFormat, rejectFormat) => {
    const child = spawn(javaBinary(), args, { cwd: layout.dir, stdio: ['ignore', fd, fd] });
    child.once('error', (err) => {
      closeSync(fd);
      rejectFormat(err);
    });
    child.once('close', (code) => {
      closeSync(fd);
      if (code === 0) resolveFormat();
      else
        rejectFormat(
          new InfraError(
            `kafka storage format failed (exit ${code}); see ${displayPath(ctx.root, layout.formatLog)}`,
            tailFile(layout.formatLog, 20),
          ),
        );
    });
  });
}

/** A client of the `admin` principal (topics, ACLs) retrying `retries` times from 300 ms. */
export function adminKafka(brokers: string[], clientId: string, retries: number): Kafka {
  return new Kafka({
    clientId,
    brokers,
    sasl: kafkaSasl(KAFKA_ADMIN_PRINCIPAL),
    logLevel: logLevel.NOTHING,
    retry: { retries, initialRetryTime: 300 },
  });
}

export function createKafkaServer(cfg: InfraConfig): LocalServer {
  const host = cfg.host;
  const port = cfg.ports.kafka;
  const brokers = [`${host}:${port}`];
  const pomFile = join(cfg.root, 'tools', 'infra', 'maven', 'kafka', 'pom.xml');

  return {
    name: 'kafka',
    port,
    auxPorts: [cfg.ports.kafkaController],
    connection: { envVar: 'KAFKA_BROKERS', value: brokers.join(','), extraEnv: kafkaCredentialEnv() },

    async install(ctx) {
      ensureJava();
      const layout = kafkaLayout(ctx.infraDir);
      await resolveMavenClasspath(ctx, { name: 'kafka', pomFile, libDir: layout.libDir });
      mkdirSync(layout.configDir, { recursive: true });
      mkdirSync(layout.dataDir, { recursive: true });
      writeFileSync(
        layout.serverProperties,
        kafkaServerProperties({
          host,
          port,
          controllerPort: cfg.ports.kafkaController,
          dataDir: layout.dataDir,
          adminPassword: kafkaDevPassword(KAFKA_ADMIN_PRINCIPAL),
        }),
      );
      writeFileSync(layout.log4jProperties, kafkaLog4jProperties());
      const formattedWith = existsSync(layout.scramFile)
        ? readFileSync(layout.scramFile, 'utf8').trim()
        : undefined;
      if (existsSync(join(layout.dataDir, 'meta.properties')) && formattedWith !== scramFingerprint()) {
        // SCRAM credentials can only be bootstrapped at format: storage of an older PLAINTEXT
        // broker (or another set of principals) is local development data, formatted again
        ctx.log(
          `KRaft storage was formatted without these SCRAM principals: formatting ${displayPath(ctx.root, layout.dataDir)} again (its topics are dropped)`,
        );
        rmSync(layout.dataDir, { recursive: true, force: true });
        mkdirSync(layout.dataDir, { recursive: true });
      }
      if (!existsSync(join(layout.dataDir, 'meta.properties'))) {
        const clusterId = existsSync(layout.clusterIdFile)
          ? readFileSync(layout.clusterIdFile, 'utf8').trim()
          : kafkaClusterId();
        writeFileSync(layout.clusterIdFile, `${clusterId}\n`);
        ctx.log(`formatting KRaft storage (cluster id ${clusterId})`);
        await runStorageFormat(ctx, layout, clusterId);
        writeFileSync(layout.scramFile, `${scramFingerprint()}\n`);
      }
    },

    async launch(ctx): Promise<LaunchSpec> {
      const layout = kafkaLayout(ctx.infraDir);
      return {
        command: javaBinary(),
        args: [...kafkaJvmArgs(layout, cfg.kafkaHeap), 'kafka.Kafka', layout.serverProperties],
        cwd: layout.dir,
      };
    },

    async waitReady(ctx, timeoutMs) {
      try {
        await retryUntil(() => describeCluster(brokers, 5000), timeoutMs, {
          intervalMs: 1000,
          signal: ctx.signal,
          onWait: (elapsed) => ctx.log(`waiting for the broker (${Math.round(elapsed / 1000)}s)`),
        });
      } catch (err) {
        throw new InfraError(
          `kafka not ready on ${brokers[0]} after ${Math.round(timeoutMs / 1000)}s (${(err as Error).message}; a broker started by an older tools/infra without SASL needs a restart: npm run infra:down -- kafka && npm run infra:up -- kafka); last lines of ${displayPath(ctx.root, kafkaLayout(ctx.infraDir).serverLog)}:`,
          tailFile(kafkaLayout(ctx.infraDir).serverLog, 20),
        );
      }
    },

    /** Creates __consumer_offsets now, so the first consumer group does not see "coordinator not available". */
    async afterStart(ctx) {
      await retryUntil(() => warmGroupCoordinator(brokers), 60_000, {
        intervalMs: 500,
        onWait: (elapsed) => ctx.log(`waiting for the group coordinator (${Math.round(elapsed / 1000)}s)`),
      }).catch((err: unknown) => ctx.log(`group coordinator not ready yet (${(err as Error).message})`));
    },

    /** After every start and on every `up` of a running broker: registry topics and the ACL table (idempotent). */
    async reconcile(ctx) {
      const { added, removed } = await provisionKafka(adminKafka(brokers, 'infra-cli', 5));
      if (added + removed > 0) ctx.log(`ACLs: ${added} binding(s) added, ${removed} removed`);
    },

    async version(ctx) {
      const layout = kafkaLayout(ctx.infraDir);
      await describeCluster(brokers, 5000); // the answer must come from a live broker
      const reported = versionFromLog(readTail(layout.serverLog, 4 * 1024 * 1024));
      const version = reported ?? jarVersion(layout.libDir, 'kafka_2.13-') ?? 'unknown';
      return `Apache Kafka ${version}`;
    },
  };
}
