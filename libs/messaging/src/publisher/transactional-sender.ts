import { Kafka, Partitioners, Producer } from 'kafkajs';

export interface TransactionalSenderOptions {
  /** How long the broker keeps a transaction open before aborting it (kafkajs transactionTimeout). */
  readonly transactionTimeoutMs?: number;
  /** Test seam: runs after the records were sent inside the transaction and before the commit. */
  readonly beforeCommit?: () => Promise<void>;
}

/** One stored record: the value is sent byte for byte as stored. */
export interface OutboxRecord {
  readonly topic: string;
  readonly key: string;
  readonly value: string;
  readonly headers: Record<string, string>;
}

/** Sends batches in Kafka transactions under one transactional id. */
export interface TransactionalSender {
  /** True between a successful `init` and a failure that made the producer unusable. */
  readonly ready: boolean;
  /**
   * Registers a fresh producer for the transactional id (InitProducerId): the broker bumps the
   * epoch, aborts any transaction an older producer of the id left open, and from then on refuses
   * that producer's sends and commits.
   */
  init(): Promise<void>;
  /** Sends the records in one transaction and commits it; aborts it on failure. */
  send(records: readonly OutboxRecord[]): Promise<void>;
  /** Of `topics`, those the cluster does not have. */
  missingTopics(topics: readonly string[]): Promise<string[]>;
  close(): Promise<void>;
}

export class KafkaTransactionalSender implements TransactionalSender {
  private producer: Producer | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly transactionalId: string,
    private readonly opts: TransactionalSenderOptions,
  ) {}

  get ready(): boolean {
    return this.producer !== undefined;
  }

  async init(): Promise<void> {
    await this.close();
    const producer = this.kafka.producer({
      transactionalId: this.transactionalId,
      transactionTimeout: this.opts.transactionTimeoutMs ?? 30_000,
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    try {
      // kafkajs asks for the producer id at the first transaction: do it now, so the fence is up
      // before the caller reads what to send.
      const txn = await producer.transaction();
      await txn.abort();
    } catch (e) {
      await producer.disconnect().catch(() => undefined);
      throw e;
    }
    this.producer = producer;
  }

  async send(records: readonly OutboxRecord[]): Promise<void> {
    const producer = this.producer;
    if (!producer) throw new Error(`transactional producer ${this.transactionalId} is not initialised`);
    if (records.length === 0) return;
    const byTopic = new Map<string, OutboxRecord[]>();
    for (const r of records) byTopic.set(r.topic, [...(byTopic.get(r.topic) ?? []), r]);
    const txn = await producer.transaction();
    try {
      await txn.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, rs]) => ({ topic, messages: rs.map((r) => ({ key: r.key, value: r.value, headers: r.headers })) })),
      });
      await this.opts.beforeCommit?.();
      await txn.commit();
    } catch (e) {
      // Abort what was sent (a fenced producer cannot, its transaction is already aborted), then
      // drop the producer: the caller initialises a new one only while it holds the lease.
      await txn.abort().catch(() => undefined);
      await this.close();
      throw e;
    }
  }

  async missingTopics(topics: readonly string[]): Promise<string[]> {
    const admin = this.kafka.admin({ retry: { retries: 1 } });
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      return topics.filter((t) => !existing.has(t));
    } finally {
      await admin.disconnect();
    }
  }

  async close(): Promise<void> {
    const p = this.producer;
    this.producer = undefined;
    await p?.disconnect().catch(() => undefined);
  }
}

