import { Consumer } from 'kafkajs';
import { OutgoingMessage } from '@mw/contracts';
import { KafkaPublisher } from '@mw/messaging';
import { type DemoUser, uniqueName, waitFor } from '@mw/testing';
import { bearer, OrdersHarness } from '../../test/harness';
import { analyticsGroupOf } from '../analytics.module';
import { ANALYTICS_COLLECTIONS } from '../analytics.repository';
import { HistoricOrderDoc } from '../demo/historic-orders';

/**
 * A real orders instance (OrdersHarness: private database, topics and groups) with its analytics
 * consumer; the test writes order documents (their events in the outbox, or published by hand)
 * and reads the figures over HTTP with real tokens.
 */
export class AnalyticsHarness {
  readonly orders: OrdersHarness;
  private readonly publisher: KafkaPublisher;
  /** Offset of the last data record of each partition of the orders topic (a read_committed reader's view). */
  private readonly lastSeen = new Map<number, bigint>();
  /** Envelope ids the reader saw on the orders topic. */
  private readonly seenIds = new Set<string>();
  private reader: Consumer | undefined;

  constructor(overrides: Record<string, string> = {}) {
    this.orders = new OrdersHarness(overrides);
    this.publisher = new KafkaPublisher(this.orders.kafka);
  }

  get config() {
    return this.orders.config;
  }

  get db() {
    return this.orders.db;
  }

  get group(): string {
    return analyticsGroupOf(this.config);
  }

  async start(): Promise<void> {
    await this.orders.start(1);
    await this.publisher.connect();
    this.reader = this.orders.kafka.consumer({
      groupId: uniqueName('analytics-reader'),
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: 100,
    });
    await this.reader.connect();
    await this.reader.subscribe({ topics: [this.config.ORDERS_EVENTS_TOPIC], fromBeginning: true });
    await this.reader.run({
      eachMessage: async ({ partition, message }) => {
        this.lastSeen.set(partition, BigInt(message.offset));
        this.seenIds.add((JSON.parse(String(message.value)) as { id: string }).id);
      },
    });
    const admin = this.orders.kafka.admin();
    await admin.connect();
    try {
      await waitFor(
        async () => {
          const { groups } = await admin.describeGroups([this.group]);
          return (
            groups[0]?.state === 'Stable' && groups[0].members.every((m) => m.memberAssignment.length > 0)
          );
        },
        90_000,
        `analytics consumer group ${this.group} assigned`,
      );
    } finally {
      await admin.disconnect();
    }
  }

  /** Writes order documents as the service does (events in `_outbox`: the service's relay publishes them). */
  async insert(docs: readonly HistoricOrderDoc[]): Promise<void> {
    await this.db.collection<HistoricOrderDoc>('orders').insertMany([...docs]);
  }

  /** Publishes envelopes straight onto the orders topic (a redelivery keeps the envelope id). */
  async publish(messages: readonly OutgoingMessage[]): Promise<void> {
    for (const m of messages) await this.publisher.publishAll([m]);
  }

  /**
   * Waits until the relay has published every outbox entry and the analytics group has committed
   * every data record of the topic. The relay publishes in Kafka transactions, whose commit markers
   * take an offset no consumer commits past: "everything" is judged against the last data record
   * a reader saw, once that reader has at most such a marker left, on two looks in a row.
   */
  async drained(): Promise<void> {
    const topic = this.config.ORDERS_EVENTS_TOPIC;
    // every entry for the topic seen by the reader: with 'stream' progress (ADR 0015 §2) the entries
    // stay in their order, so an empty outbox is no longer the sign
    const entries = this.db
      .collection<{ _outbox?: { id: string; topic: string }[] }>('orders')
      .aggregate<{ _id: string }>([
        { $match: { '_outbox.created_at': { $lte: new Date(8.64e15) } } }, // the relay's own index
        { $unwind: '$_outbox' },
        { $match: { '_outbox.topic': topic } },
        { $project: { _id: '$_outbox.id' } },
      ]);
    const ids = (await entries.toArray()).map((e) => e._id);
    await waitFor(async () => ids.every((i) => this.seenIds.has(i)), 60_000, 'outbox relayed');
    const admin = this.orders.kafka.admin();
    await admin.connect();
    const once = async (): Promise<boolean> => {
      const high = await admin.fetchTopicOffsets(topic);
      const [committed] = await admin.fetchOffsets({ groupId: this.group, topics: [topic] });
      return high.every((h) => {
        const end = (this.lastSeen.get(h.partition) ?? -1n) + 1n;
        if (BigInt(h.high) - end > 1n) return false; // the reader has not seen everything yet
        return (
          end === 0n ||
          BigInt(committed?.partitions.find((p) => p.partition === h.partition)?.offset ?? '-1') >= end
        );
      });
    };
    try {
      await waitFor(
        async () => (await once()) && (await new Promise((r) => setTimeout(r, 300)), await once()),
        90_000,
        `${topic} consumed by ${this.group}`,
      );
    } finally {
      await admin.disconnect();
    }
  }

  /** Markers of applied facts (primary). */
  markers(): Promise<number> {
    return this.db
      .collection<{ _id: string }>(ANALYTICS_COLLECTIONS.applied)
      .countDocuments({ _id: { $gte: '' } }); // by _id: no scan
  }

  /** GET as a demo user (otto, the operator, unless said). */
  async get<T>(path: string, as: DemoUser | null = 'otto'): Promise<{ status: number; body: T }> {
    const r = await this.orders.call<T>(path, as ? await bearer(as) : {});
    return { status: r.status, body: r.body };
  }

  /**
   * The answer of an endpoint once it equals `expected` (the figures are read from a secondary,
   * milliseconds behind), else the last answer after a few seconds — the caller's `toEqual` then
   * shows the difference.
   */
  async settled<T>(path: string, expected: T, timeoutMs = 10_000): Promise<T> {
    let last: T | undefined;
    try {
      return await waitFor(
        async () => {
          const r = await this.get<T>(path);
          last = r.body;
          return r.status === 200 && equals(r.body, expected) ? r.body : undefined;
        },
        timeoutMs,
        path,
      );
    } catch {
      return last as T;
    }
  }

  async stop(): Promise<void> {
    await this.reader?.disconnect();
    await this.publisher.disconnect();
    await this.orders.stop();
  }
}

/**
 * Deep equality as `toEqual` sees it. Not node's isDeepStrictEqual: a fetched JSON body is built in
 * another realm than the test's literals (Jest's sandbox), so their prototypes always differ.
 */
export function equals(a: unknown, b: unknown): boolean {
  try {
    expect(a).toEqual(b);
    return true;
  } catch {
    return false;
  }
}
