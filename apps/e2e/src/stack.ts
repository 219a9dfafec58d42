import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as CassandraClient } from 'cassandra-driver';
import { Admin, Consumer, IHeaders, Kafka, logLevel, Producer } from 'kafkajs';
import { Db, MongoClient } from 'mongodb';
import { createMongoClient } from '@mw/persistence';
import {
  accessToken,
  createTestUsers,
  type DemoUser,
  deleteTestUsers,
  freePort,
  kafkaSaslEnv,
  testEnv,
  type TestUser,
  testUserToken,
  uniqueName,
  waitFor,
} from '@mw/testing';

export const ROOT = join(__dirname, '../../..');

/** The processes `npm start` runs (tools/stack/src/services.ts), here on private resources. */
export type ServiceName = 'catalog' | 'catalog-projector' | 'inventory' | 'carts' | 'orders';
const BUNDLES: Record<ServiceName, string> = {
  catalog: 'apps/catalog/main.js',
  'catalog-projector': 'apps/catalog-projector/main.js',
  inventory: 'apps/inventory/main.js',
  carts: 'apps/carts/main.js',
  orders: 'apps/orders/main.js',
};

/** One message seen on a saga topic (originals only; the copies this suite republishes carry COPY_HEADER). */
export interface Recorded {
  readonly topic: string;
  readonly key: string;
  readonly value: string;
  readonly type: string;
  readonly payload: Record<string, unknown>;
  readonly at: number;
}

export const COPY_HEADER = 'x-e2e-copy';

/** How many processes of each service to run, and settings that override the defaults below. */
export interface StackOptions {
  readonly instances?: Partial<Record<ServiceName, number>>;
  readonly env?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Prefix of this run's private names (default `e2e`). */
  readonly prefix?: string;
  /** Customers created in Keycloak for this run (default 3), besides the payment-rule users. */
  readonly customers?: number;
  /**
   * Where an instance runs: a network namespace of its own (the cluster topology, ADR 0062), reached
   * at the namespace's address; undefined (the default) runs it here on a free loopback port.
   */
  readonly placement?: (id: string) => Placement | undefined;
  /** How long start() waits for each instance and for every group's assignment (default 120 s; a cold cluster's schema changes take longer). */
  readonly startTimeoutMs?: number;
}

/** A network host of the cluster topology an instance runs in (`ip netns exec`, so its pid is the service's). */
export interface Placement {
  readonly namespace: string;
  readonly address: string;
}

/** The HTTP port of an instance in a namespace of its own (nothing else listens there). */
const PLACED_PORT = 8000;

/** One running process of a service: `inventory` (the first) or `inventory-2`, `inventory-3`… */
export interface Instance {
  readonly id: string;
  readonly service: ServiceName;
  readonly port: number;
  readonly url: string;
  /** Its namespace when it runs on a host of its own. */
  readonly placement?: Placement;
  child: ChildProcess;
}

/** Who makes a request: a demo user of the realm, a user created for this run, or nobody. */
export type Identity = DemoUser | TestUser | 'anonymous';

export interface Res<T = Record<string, unknown>> {
  readonly status: number;
  readonly body: T;
}


/**
 * The whole system as real processes from the webpack bundles (`nx run <app>:build`), every one on
 * private resources of this run: MongoDB databases, Cassandra keyspaces, consumer groups and topics
 * (so it never meets `npm start` or another suite), with short deadlines.
 *
 * The catalog API's topic names are not configurable (only the projector's, for its benchmark): it
 * runs with its outbox relay off, so nothing reaches the shared catalog.products.v1, and
 * `relayCatalog()` publishes the envelopes exactly as the catalog stored them in its outbox onto
 * this run's products topic, which carts and the projector consume.
 */
export class Stack {
  readonly run: string;
  readonly topics: Record<'products' | 'checkout' | 'orders' | 'commands' | 'events', string>;
  readonly groups: Record<'inventory' | 'carts' | 'orders' | 'projector', string>;
  readonly dbs: Record<'catalog' | 'inventory' | 'orders', string>;
  readonly keyspaces: Record<'catalog' | 'carts', string>;
  /** Payment simulator rules by user id (Keycloak users created for this run by start()). */
  users: Record<'decline' | 'hang', string> = { decline: '', hang: '' };
  /** The users behind the payment rules, to act as them. */
  ruleUsers: Record<'decline' | 'hang', TestUser> | undefined;
  /** Customers created in Keycloak for this run (start()); deleted by stop(). */
  customers: TestUser[] = [];
  readonly urls = {} as Record<ServiceName, string>;
  readonly recorded: Recorded[] = [];
  readonly mongo: MongoClient;
  readonly kafka: Kafka;
  private readonly procs = new Map<string, Instance>();
  private readonly producer: Producer;
  private readonly admin: Admin;
  private recorder: Consumer | undefined;
  /** Offset of the last data record the recorder saw, by `topic:partition` (control records are never delivered). */
  private readonly lastSeen = new Map<string, bigint>();
  readonly logDir: string;
  private readonly env = testEnv();
  /** Called for every original message seen on a saga topic (the duplicate test republishes from here). */
  onMessage: ((m: Recorded) => void) | undefined;

  /** `dist` holds the bundles (default: this checkout's dist/, built by the test target's dependsOn). */
  constructor(
    private readonly dist = join(ROOT, 'dist'),
    private readonly options: StackOptions = {},
  ) {
    this.run = uniqueName(options.prefix ?? 'e2e').toLowerCase();
    this.logDir = join(ROOT, 'dist', `${options.prefix ?? 'e2e'}-logs`, this.run);
    this.topics = {
      products: `catalog.products.v1.${this.run}`,
      checkout: `e2e.carts.checkout.${this.run}`,
      orders: `e2e.orders.orders.${this.run}`,
      commands: `e2e.inventory.commands.${this.run}`,
      events: `e2e.inventory.events.${this.run}`,
    };
    this.groups = {
      inventory: `inventory-${this.run}`,
      carts: `carts-${this.run}`,
      orders: `orders-${this.run}`,
      projector: `catalog-projector-${this.run}`,
    };
    this.dbs = { catalog: `catalog_${this.run}`, inventory: `inventory_${this.run}`, orders: `orders_${this.run}` };
    this.keyspaces = { catalog: `cr_${this.run}`.slice(0, 48), carts: `carts_${this.run}`.slice(0, 48) };
    this.mongo = createMongoClient(this.env.mongoUrl);
    this.kafka = new Kafka({ clientId: `e2e-${this.run}`, brokers: this.env.kafkaBrokers, sasl: this.env.kafkaSasl, logLevel: logLevel.NOTHING });
    this.producer = this.kafka.producer({ allowAutoTopicCreation: false, idempotent: false });
    this.admin = this.kafka.admin();
  }

  db(name: keyof Stack['dbs']): Db {
    return this.mongo.db(this.dbs[name]);
  }

  /** Settings of each service; `npm start` gives the same processes only their ports and servers. */
  private serviceEnv(name: ServiceName, port: number, id: string): Record<string, string> {
    return { ...this.defaultEnv(name, port), KAFKA_CLIENT_ID: `${id}-${this.run}`, ...(this.options.env?.[name] ?? {}), ...(this.instanceEnv.get(id) ?? {}) };
  }

  /** Settings of one process from its next (re)start on, over the service's (e.g. a test pause point only the first run has). */
  private readonly instanceEnv = new Map<string, Record<string, string>>();

  private defaultEnv(name: ServiceName, port: number): Record<string, string> {
    const common = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      KAFKA_BROKERS: this.env.kafkaBrokers.join(','),
      // every process as `test`: this run's topics are private (e2e.*, catalog.products.v1.<run>), ADR 0009
      ...kafkaSaslEnv(this.env.kafkaSasl),
      KAFKA_CLIENT_ID: `${name}-${this.run}`,
      KAFKA_TOPIC_PARTITIONS: '3',
      HTTP_PORT: String(port),
      SHUTDOWN_TIMEOUT_MS: '5000',
      OIDC_ISSUER: this.env.oidcIssuer,
      OIDC_AUDIENCE: this.env.oidcAudience,
      // a handful of customers write far more than a person would: the limit is tested elsewhere
      RATE_LIMIT_WRITES_PER_MINUTE: '1000000',
      RATE_LIMIT_READS_PER_MINUTE: '1000000',
      RATE_LIMIT_GUEST_SESSIONS_PER_HOUR: '1000000',
      CARTS_MAX_ACTIVE_PER_OWNER: '10000',
    };
    const cassandra = { CASSANDRA_CONTACT_POINTS: this.env.cassandraContactPoints.join(','), CASSANDRA_LOCAL_DATACENTER: this.env.cassandraDatacenter };
    switch (name) {
      case 'catalog':
      case 'catalog-projector':
        return {
          ...common,
          ...cassandra,
          MONGO_URL: this.env.mongoUrl,
          MONGO_DB: this.dbs.catalog,
          CASSANDRA_KEYSPACE: this.keyspaces.catalog,
          CATALOG_READ_PREFERENCE: 'primary',
          CATALOG_OUTBOX_RELAY: 'false',
          KAFKA_GROUP_ID: `catalog-${this.run}`,
          PROJECTOR_GROUP_ID: this.groups.projector,
          PROJECTOR_TOPIC: this.topics.products,
          PROJECTOR_HTTP_PORT: String(port),
        };
      case 'inventory':
        return {
          ...common,
          MONGO_URL: this.env.mongoUrl,
          MONGO_DB: this.dbs.inventory,
          KAFKA_GROUP_ID: this.groups.inventory,
          INVENTORY_COMMANDS_TOPIC: this.topics.commands,
          INVENTORY_EVENTS_TOPIC: this.topics.events,
          INVENTORY_SWEEP_INTERVAL_MS: '200',
          INVENTORY_PUMP_INTERVAL_MS: '100',
          OUTBOX_POLL_MS: '50',
        };
      case 'carts':
        return {
          ...common,
          ...cassandra,
          CASSANDRA_KEYSPACE: this.keyspaces.carts,
          KAFKA_GROUP_ID: this.groups.carts,
          CARTS_PRODUCTS_TOPIC: this.topics.products,
          CARTS_STOCK_TOPIC: this.topics.events,
          CARTS_ORDERS_TOPIC: this.topics.orders,
          CARTS_CHECKOUT_TOPIC: this.topics.checkout,
          CHECKOUT_RELAY_INTERVAL_MS: '200',
          CHECKOUT_RELAY_MIN_AGE_MS: '1000',
          CHECKOUT_INTENT_GRACE_MS: '5000',
        };
      case 'orders':
        return {
          ...common,
          MONGO_URL: this.env.mongoUrl,
          MONGO_DB: this.dbs.orders,
          KAFKA_GROUP_ID: this.groups.orders,
          ORDER_HISTORY_READ_PREFERENCE: 'primary',
          ORDERS_CHECKOUT_TOPIC: this.topics.checkout,
          ORDERS_EVENTS_TOPIC: this.topics.orders,
          INVENTORY_COMMANDS_TOPIC: this.topics.commands,
          INVENTORY_EVENTS_TOPIC: this.topics.events,
          // Short deadlines so the deadline cases end in seconds; the hold outlives the payment wait
          // (config rule) by more than the commit window, so the payment wait stays the deadline.
          STOCK_HOLD_SECONDS: String(HOLD_SECONDS),
          SAGA_STOCK_TIMEOUT_MS: '5000',
          SAGA_PAYMENT_TIMEOUT_MS: String(PAYMENT_TIMEOUT_MS),
          SAGA_COMMIT_TIMEOUT_MS: String(COMMIT_WINDOW_MS),
          SAGA_CANCEL_TIMEOUT_MS: '5000',
          SAGA_SWEEP_INTERVAL_MS: '200',
          OUTBOX_POLL_MS: '50',
          PAYMENT_POLL_MS: '50',
          PAYMENT_RETRY_BASE_MS: '100',
          PAYMENT_RETRY_MAX_MS: '400',
          PAYMENT_CALL_TIMEOUT_MS: '2000',
          PAYMENT_SIM_LATENCY_MIN_MS: '30',
          PAYMENT_SIM_LATENCY_MAX_MS: '60',
          PAYMENT_SIM_TRANSIENT_ERROR_RATE: '0',
          PAYMENT_SIM_TIMEOUT_RATE: '0',
          // the operator's Kafka endpoints, as `test` on this run's topics (ops on the registry's in the stack)
          OPS_KAFKA_USERNAME: this.env.kafkaSasl?.username ?? 'test',
          ...(this.env.kafkaSasl ? { OPS_KAFKA_PASSWORD: this.env.kafkaSasl.password } : {}),
          OPS_DLQ_TOPICS: Object.values(this.topics).join(','),
          OPS_PROJECTOR_GROUP: this.groups.projector,
          PAYMENT_SIM_DECLINE_USERS: this.users.decline,
          PAYMENT_SIM_HANG_USERS: this.users.hang,
        };
    }
  }

  async start(): Promise<void> {
    mkdirSync(this.logDir, { recursive: true });
    // Real users in the project's Keycloak: the services know a user only as a token subject.
    const [decline, hang] = await createTestUsers(`${this.run}-rule`, 2);
    if (!decline || !hang) throw new Error('Keycloak users for the payment rules not created');
    this.ruleUsers = { decline, hang };
    this.users = { decline: decline.id, hang: hang.id };
    this.customers = await createTestUsers(`${this.run}-customer`, this.options.customers ?? 3);
    await this.mongo.connect();
    await this.producer.connect();
    await this.admin.connect();
    const names: ServiceName[] = ['inventory', 'orders', 'carts', 'catalog', 'catalog-projector'];
    for (const name of names) {
      const count = this.options.instances?.[name] ?? 1;
      for (let i = 1; i <= count; i++) {
        const id = i === 1 ? name : `${name}-${i}`;
        const placement = this.options.placement?.(id);
        const port = placement ? PLACED_PORT : await freePort();
        const url = `http://${placement?.address ?? '127.0.0.1'}:${port}`;
        this.procs.set(id, { id, service: name, port, url, ...(placement ? { placement } : {}), child: this.spawn(name, id, port) });
        if (i === 1) this.urls[name] = url;
      }
    }
    await Promise.all([...this.procs.keys()].map((id) => this.waitReady(id, this.options.startTimeoutMs)));
    // Every consumer group holds its partitions before the first message: nothing a test sends waits on a rebalance.
    const expected = [this.groups.inventory, this.groups.orders, this.groups.carts, this.groups.projector];
    await waitFor(async () => {
      const { groups } = await this.admin.describeGroups(expected);
      return groups.every((g) => g.state === 'Stable' && g.members.length > 0 && g.members.some((m) => m.memberAssignment.length > 0));
    }, Math.max(90_000, this.options.startTimeoutMs ?? 0), 'every consumer group assigned');
    await this.startRecorder();
  }

  private spawn(name: ServiceName, id: string, port: number): ChildProcess {
    const node = [process.execPath, '--enable-source-maps', join(this.dist, BUNDLES[name])];
    const ns = this.options.placement?.(id)?.namespace;
    // `ip netns exec` execs node in the namespace: signals reach the service itself
    const [command, ...args] = ns ? ['ip', 'netns', 'exec', ns, ...node] : node;
    const child = spawn(command as string, args, {
      cwd: ROOT,
      env: this.serviceEnv(name, port, id),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = createWriteStream(join(this.logDir, `${id}.log`), { flags: 'a' });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    return child;
  }

  /** Every process of the stack (instances of all services). */
  instances(service?: ServiceName): Instance[] {
    return [...this.procs.values()].filter((p) => service === undefined || p.service === service);
  }

  instance(id: string): Instance {
    const p = this.procs.get(id);
    if (!p) throw new Error(`no instance ${id}`);
    return p;
  }

  /** Sends a signal to one process (SIGKILL, SIGSTOP, SIGCONT…); resolves when a killed one has exited. */
  async signal(id: string, signal: NodeJS.Signals): Promise<void> {
    const { child } = this.instance(id);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    if (signal === 'SIGKILL' || signal === 'SIGTERM') await exited;
  }

  /** Starts a process that exited (was killed) again on the same port and waits until it is ready. */
  async restart(id: string, readyTimeoutMs = 120_000, env?: Record<string, string>): Promise<void> {
    const p = this.instance(id);
    if (env) this.instanceEnv.set(id, env);
    if (p.child.exitCode === null && p.child.signalCode === null) throw new Error(`${id} is still running`);
    p.child = this.spawn(p.service, id, p.port);
    await this.waitReady(id, readyTimeoutMs);
  }

  async waitReady(id: string, timeoutMs = 120_000): Promise<void> {
    const { child, url } = this.instance(id);
    const state = await waitFor(
      async () => {
        if (child.exitCode !== null) return 'exited'; // fail at once, with its log
        const r = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2000) });
        return r.ok ? 'ready' : undefined;
      },
      timeoutMs,
      `${id} ready`,
    ).catch((e: unknown) => (e as Error).message);
    if (state !== 'ready') throw new Error(`${id}: ${state === 'exited' ? `exited with ${child.exitCode}` : state}\n--- ${id} log ---\n${this.tail(id)}`);
  }

  tail(id: string, lines = 30): string {
    try {
      return readFileSync(join(this.logDir, `${id}.log`), 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  private async startRecorder(): Promise<void> {
    this.recorder = this.kafka.consumer({ groupId: `recorder-${this.run}`, allowAutoTopicCreation: false, maxWaitTimeInMs: 50 });
    await this.recorder.connect();
    const t = this.topics;
    await this.recorder.subscribe({ topics: [t.checkout, t.commands, t.events, t.orders, t.products], fromBeginning: true });
    await this.recorder.run({
      eachMessage: async ({ topic, partition, message }) => {
        this.lastSeen.set(`${topic}:${partition}`, BigInt(message.offset));
        if (topic === t.products) return;
        if (message.headers?.[COPY_HEADER]) return;
        const value = message.value?.toString() ?? '';
        let e: { type: string; payload: Record<string, unknown> };
        try {
          e = JSON.parse(value) as typeof e;
        } catch {
          return; // an unparseable record (the chaos run's poison) is the services' business, not the recorder's
        }
        const m: Recorded = { topic, key: message.key?.toString() ?? '', value, type: e.type, payload: e.payload, at: Date.now() };
        this.recorded.push(m);
        this.onMessage?.(m);
      },
    });
  }

  /** Raw records onto a topic, as they are (e.g. poison the services must dead-letter). */
  async publishRaw(topic: string, messages: { key: string; value: string; headers?: IHeaders }[]): Promise<void> {
    await this.producer.send({ topic, acks: -1, messages });
  }

  /** The settings a service's processes run with (e.g. to run its scripts against this stack). */
  envOf(name: ServiceName): Record<string, string> {
    return this.serviceEnv(name, 1, name);
  }

  /** Copies of recorded messages, byte for byte, onto their topics (marked so the recorder skips them). */
  async republish(messages: readonly Recorded[]): Promise<void> {
    const headers: IHeaders = { [COPY_HEADER]: '1' };
    for (const m of messages) {
      await this.producer.send({ topic: m.topic, acks: -1, messages: [{ key: m.key, value: m.value, headers }] });
    }
  }

  /** Plays the catalog's outbox relay onto this run's products topic: every pending envelope, as stored. */
  async relayCatalog(): Promise<number> {
    const docs = await this.db('catalog').collection<{ _outbox?: { id: string; topic: string; key: string; envelope: string; traceparent?: string }[] }>('products').find({ '_outbox.0': { $exists: true } }).toArray();
    let n = 0;
    for (const d of docs) {
      for (const e of d._outbox ?? []) {
        if (e.topic !== 'catalog.products.v1') continue;
        // with the trace context the catalog stored, as its relay would send it (ADR 0014)
        await this.producer.send({ topic: this.topics.products, acks: -1, messages: [{ key: e.key, value: e.envelope, ...(e.traceparent ? { headers: { traceparent: e.traceparent } } : {}) }] });
        n++;
      }
      await this.db('catalog').collection('products').updateOne({ _id: d._id }, { $pull: { _outbox: { id: { $in: (d._outbox ?? []).map((e) => e.id) } } } } as never);
    }
    return n;
  }

  /** A bearer token of an identity (undefined for anonymous). */
  async tokenOf(who: Identity): Promise<string | undefined> {
    if (who === 'anonymous') return undefined;
    if (typeof who === 'string') return accessToken(who);
    return testUserToken(who);
  }

  /**
   * Who calls a service unless a test says otherwise: the catalog manager for the catalog, the
   * stock manager for inventory, the run's first customer for carts and orders.
   */
  defaultIdentity(service: ServiceName): Identity {
    if (service === 'catalog' || service === 'catalog-projector') return 'carol';
    if (service === 'inventory') return 'stan';
    const first = this.customers[0];
    if (!first) throw new Error('no customers: start() the stack first');
    return first;
  }

  /** Authorization header of an identity (none for anonymous). */
  async authOf(who: Identity): Promise<Record<string, string>> {
    const token = await this.tokenOf(who);
    return token ? { authorization: `Bearer ${token}` } : {};
  }

  async http<T = Record<string, unknown>>(
    service: ServiceName,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    as: Identity = this.defaultIdentity(service),
  ): Promise<Res<T>> {
    const auth = await this.authOf(as);
    const r = await fetch(`${this.urls[service]}${path}`, {
      method,
      headers: body === undefined ? { ...auth, ...headers } : { 'content-type': 'application/json', ...auth, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: (text ? JSON.parse(text) : {}) as T };
  }

  /**
   * Waits until every service's consumer group has committed every data record of every topic it
   * reads. The outbox relays publish in Kafka transactions, so a partition ends with a commit marker
   * that kafkajs consumers never commit past: "drained" is judged against the last data record the
   * recorder (a read_committed consumer) saw, once the recorder itself has nothing but at most that
   * marker left to read, and the state must hold on two reads in a row.
   */
  async drained(timeoutMs = 60_000): Promise<void> {
    const reads: [string, string][] = [
      [this.groups.inventory, this.topics.commands],
      [this.groups.orders, this.topics.checkout],
      [this.groups.orders, this.topics.events],
      [this.groups.carts, this.topics.products],
      [this.groups.carts, this.topics.events],
      [this.groups.carts, this.topics.orders],
      [this.groups.projector, this.topics.products],
    ];
    const once = async (): Promise<boolean> => {
      for (const [groupId, topic] of reads) {
        const high = await this.admin.fetchTopicOffsets(topic);
        const [committed] = await this.admin.fetchOffsets({ groupId, topics: [topic] });
        for (const h of high) {
          const end = (this.lastSeen.get(`${topic}:${h.partition}`) ?? -1n) + 1n;
          if (BigInt(h.high) - end > 1n) return false; // the recorder has not read everything yet
          const offset = BigInt(committed?.partitions.find((p) => p.partition === h.partition)?.offset ?? '-1');
          if (end > 0n && offset < end) return false;
        }
      }
      return true;
    };
    await waitFor(async () => (await once()) && (await new Promise((r) => setTimeout(r, 300)), await once()), timeoutMs, 'every consumer group drained');
  }

  pid(id: string): number {
    const pid = this.procs.get(id)?.child.pid;
    if (!pid) throw new Error(`${id} is not running`);
    return pid;
  }

  async stop(): Promise<void> {
    this.onMessage = undefined;
    await this.recorder?.disconnect().catch(() => undefined);
    await Promise.all(
      [...this.procs.values()].map(
        ({ child: c }) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGCONT');
            c.kill('SIGTERM');
            setTimeout(() => c.kill('SIGKILL'), 10_000).unref();
          }),
      ),
    );
    await this.producer.disconnect().catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
    for (const db of Object.values(this.dbs)) await this.mongo.db(db).dropDatabase().catch(() => undefined);
    await this.mongo.close();
    await deleteTestUsers([...this.customers, ...Object.values(this.ruleUsers ?? {})]).catch(() => undefined);
    const cassandra = new CassandraClient({ contactPoints: this.env.cassandraContactPoints, localDataCenter: this.env.cassandraDatacenter });
    try {
      for (const ks of Object.values(this.keyspaces)) await cassandra.execute(`DROP KEYSPACE IF EXISTS ${ks}`).catch(() => undefined);
    } finally {
      await cassandra.shutdown();
    }
  }
}

export const HOLD_SECONDS = 6;
export const PAYMENT_TIMEOUT_MS = 4000;
/** The commit window (ADR 0015 §3): the payment deadline is min(4 s, 6 s − 1.5 s), the payment wait. */
export const COMMIT_WINDOW_MS = 1500;

export const newId = (): string => randomUUID();
