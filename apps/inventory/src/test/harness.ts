import { randomUUID } from 'node:crypto';
import { INestApplication } from '@nestjs/common';
import { Admin, Consumer, Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { createMongoClient } from '@mw/persistence';
import { createMessage, MessageTypeOf, PayloadOf } from '@mw/contracts';
import { KafkaPublisher } from '@mw/messaging';
import type { EdgeSettings } from '@mw/platform';
import { accessToken, type DemoUser, kafkaSaslEnv, serviceToken, startService, testEnv, uniqueName, waitFor } from '@mw/testing';
import { api } from '../api';
import { countByKind, ledgerEntriesOf } from './ledger-entries';
import { AppModule } from '../app.module';
import { InventoryConfig, loadInventoryConfig } from '../config';
import { StockDoc, stockKey } from '../stock/stock';

/** Who calls: a demo user (password grant), the operations client (`service`), a raw Authorization header, or nobody. */
export type Who = DemoUser | 'service' | { readonly authorization: string } | undefined;

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON, or the text of a non-JSON answer. */
  readonly body: Record<string, unknown> & { [k: string]: unknown };
}

/** The Authorization header of a caller (real tokens from the project's Keycloak). */
export async function authorizationOf(who: Who): Promise<Record<string, string>> {
  if (who === undefined) return {};
  if (typeof who === 'object') return { authorization: who.authorization };
  return { authorization: `Bearer ${who === 'service' ? await serviceToken() : await accessToken(who)}` };
}

export interface EventSeen {
  readonly type: string;
  readonly key: string;
  readonly id: string;
  readonly payload: Record<string, unknown>;
}

/**
 * Real inventory instances (Nest app, Kafka consumer, background loops) on private topics, a
 * private consumer group and a private database, plus a publisher and a recorder of every event.
 */
export class InventoryHarness {
  readonly apps: INestApplication[] = [];
  readonly urls: string[] = [];
  readonly events: EventSeen[] = [];
  readonly config: Readonly<InventoryConfig>;
  readonly kafka: Kafka;
  readonly mongo: MongoClient;
  private readonly publisher: KafkaPublisher;
  private readonly admin: Admin;
  private recorder: Consumer | undefined;

  constructor(overrides: Record<string, string> = {}) {
    const env = testEnv();
    this.config = loadInventoryConfig({
      ...process.env,
      KAFKA_BROKERS: env.kafkaBrokers.join(','),
      ...kafkaSaslEnv(env.kafkaSasl),
      MONGO_URL: env.mongoUrl,
      MONGO_DB: uniqueName('inventory'),
      KAFKA_GROUP_ID: uniqueName('inventory'),
      INVENTORY_COMMANDS_TOPIC: uniqueName('test.inventory.commands'),
      INVENTORY_EVENTS_TOPIC: uniqueName('test.inventory.events'),
      KAFKA_TOPIC_PARTITIONS: '4',
      LOG_LEVEL: 'warn',
      INVENTORY_SWEEP_INTERVAL_MS: '300',
      INVENTORY_STALE_AFTER_MS: '3000',
      OUTBOX_POLL_MS: '100',
      INVENTORY_PUMP_INTERVAL_MS: '100',
      ...overrides,
    });
    this.kafka = new Kafka({ clientId: 'inventory-test', brokers: [...this.config.KAFKA_BROKERS], sasl: env.kafkaSasl, logLevel: logLevel.NOTHING });
    this.publisher = new KafkaPublisher(this.kafka);
    this.admin = this.kafka.admin();
    this.mongo = createMongoClient(this.config.MONGO_URL);
  }

  get db() {
    return this.mongo.db(this.config.MONGO_DB);
  }

  /**
   * `instances` service processes in one consumer group, and the recorder of every event. `edge`:
   * settings over the test edge settings (CORS origins); `consumer: false` starts HTTP only.
   */
  async start(instances: number, opts: { readonly edge?: Partial<EdgeSettings>; readonly consumer?: boolean } = {}): Promise<void> {
    const consumer = opts.consumer ?? true;
    await this.mongo.connect();
    await this.admin.connect();
    for (let i = 0; i < instances; i++) {
      const { app, url } = await startService({
        name: 'inventory',
        api,
        rootModule: (logger) => AppModule.register(this.config, logger, { commands: consumer }),
        brokers: this.config.KAFKA_BROKERS,
        ...(opts.edge ? { edge: opts.edge } : {}),
      });
      this.apps.push(app);
      this.urls.push(url);
    }
    if (!consumer) return;
    await this.startRecorder();
    await waitFor(async () => {
      const { groups } = await this.admin.describeGroups([this.config.KAFKA_GROUP_ID]);
      const g = groups[0];
      return g?.state === 'Stable' && g.members.length === instances && g.members.every((m) => m.memberAssignment.length > 0);
    }, 90_000, `${instances} consumer(s) assigned in group ${this.config.KAFKA_GROUP_ID}`);
  }

  private async startRecorder(): Promise<void> {
    this.recorder = this.kafka.consumer({ groupId: uniqueName('recorder'), allowAutoTopicCreation: false });
    await this.recorder.connect();
    await this.recorder.subscribe({ topics: [this.config.INVENTORY_EVENTS_TOPIC], fromBeginning: true });
    await this.recorder.run({
      eachMessage: async ({ message }) => {
        const e = JSON.parse(message.value?.toString() ?? 'null') as { id: string; type: string; payload: Record<string, unknown> };
        this.events.push({ type: e.type, key: message.key?.toString() ?? '', id: e.id, payload: e.payload });
      },
    });
  }

  /** Publishes commands on the private topic, in order per key. */
  async send(commands: { type: MessageTypeOf<'inventory.commands.v1'>; payload: PayloadOf<'inventory.commands.v1', MessageTypeOf<'inventory.commands.v1'>> }[]): Promise<void> {
    const trace = { correlation_id: 'inventory-test', causation_id: null };
    const messages = commands.map((c) => ({ ...createMessage('inventory.commands.v1', c.type, c.payload as never, trace), topic: this.config.INVENTORY_COMMANDS_TOPIC }));
    for (let i = 0; i < messages.length; i += 200) await this.publisher.publishAll(messages.slice(i, i + 200) as never);
  }

  /** Raw bytes on the commands topic (for contract-breaking messages). */
  async sendRaw(key: string, value: string): Promise<void> {
    await this.publisher.sendRaw(this.config.INVENTORY_COMMANDS_TOPIC, { key, value, headers: {} });
  }

  /** The counters of one stock document, and the orders whose return is marked on it. */
  async counters(productId: string, zone = 'MSK'): Promise<{ available: number; reserved: number; committed: number; marks: string[] }> {
    const d = await this.db.collection<StockDoc>('stock').findOne({ _id: stockKey(productId, zone) });
    if (!d) throw new Error(`no stock document ${stockKey(productId, zone)}`);
    return { available: d.available, reserved: d.reserved, committed: d.committed, marks: (d.return_marks ?? []).map((m) => m.order_id) };
  }

  /**
   * The ledger entries of these orders, per kind: in the ledger collection and still pending in a
   * stock document's `_ledger` (an entry in both — copied, not yet pulled — counts once).
   */
  async movementsOf(orderIds: readonly string[]): Promise<Record<string, number>> {
    const { ledger, pending } = await ledgerEntriesOf(this.db, orderIds);
    // an entry copied but not yet pulled is in both places: counted once, by its id
    return countByKind([...new Map([...ledger, ...pending].map((e) => [e._id, e])).values()]);
  }

  eventsFor(orderId: string, type?: string): EventSeen[] {
    return this.events.filter((e) => e.payload['order_id'] === orderId && (!type || e.type === type));
  }

  /** One HTTP call to an instance, as `as` (nobody unless given). */
  async http(
    method: string,
    path: string,
    opts: { readonly as?: Who; readonly body?: unknown; readonly headers?: Record<string, string>; readonly instance?: number } = {},
  ): Promise<HttpAnswer> {
    const { body } = opts;
    const res = await fetch(`${this.urls[opts.instance ?? 0]}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(await authorizationOf(opts.as)), ...opts.headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    const json = res.headers.get('content-type')?.includes('application/json') && text !== '';
    return { status: res.status, headers: res.headers, body: (json ? JSON.parse(text) : text) as HttpAnswer['body'] };
  }

  async stop(): Promise<void> {
    await this.recorder?.disconnect();
    for (const app of this.apps) await app.close();
    await this.publisher.disconnect();
    await this.admin.disconnect();
    await this.mongo.db(this.config.MONGO_DB).dropDatabase().catch(() => undefined);
    await this.mongo.close();
  }
}

/** A fresh Idempotency-Key header for a restock (every restock must carry one). */
export const restockKey = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });

/** The If-Match header of a stock-take counted against `version`. */
export const ifMatch = (version: number): Record<string, string> => ({ 'if-match': `"${version}"` });

export const oid = (prefix: number, n: number): string => `${prefix.toString(16).padStart(8, '0')}${n.toString(16).padStart(16, '0')}`;
