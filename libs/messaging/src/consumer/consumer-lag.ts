import type { Admin } from 'kafkajs';
import { Gauge, type Registry } from 'prom-client';

/** What a scrape asks the broker: the groups' committed offsets and the partitions' end offsets. */
export type OffsetsAdmin = Pick<Admin, 'connect' | 'fetchOffsets' | 'fetchTopicOffsets'>;

export interface CommittedOffsets {
  readonly group: string;
  readonly topic: string;
  readonly partitions: readonly { readonly partition: number; readonly offset: string }[];
}

export interface EndOffsets {
  readonly topic: string;
  readonly partitions: readonly { readonly partition: number; readonly high: string }[];
}

export interface LagRow {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  readonly lag: number;
}

/**
 * Lag of each (group, topic, partition) = end offset − committed offset. A partition the group has
 * never committed on (offset -1: a topic it only produces, or nothing consumed yet) has no row; a
 * committed offset past the end (the topic was recreated) counts as 0.
 */
export function lagRows(committed: readonly CommittedOffsets[], ends: readonly EndOffsets[]): LagRow[] {
  const end = new Map(
    ends.flatMap((t) => t.partitions.map((p) => [`${t.topic}/${p.partition}`, BigInt(p.high)] as const)),
  );
  return committed.flatMap((c) =>
    c.partitions.flatMap((p) => {
      const high = end.get(`${c.topic}/${p.partition}`);
      const offset = BigInt(p.offset);
      if (high === undefined || offset < 0n) return [];
      return [
        {
          group: c.group,
          topic: c.topic,
          partition: p.partition,
          lag: Number(high > offset ? high - offset : 0n),
        },
      ];
    }),
  );
}

/** How long one broker round answers every gauge of a scrape (each gauge's collect asks for it). */
const SNAPSHOT_MS = 1000;

/**
 * `kafka_consumer_group_lag{group,topic,partition}` for the consumer groups of this process and
 * `kafka_topic_partition_end_offset{topic,partition}` for the topics it touches — read from the broker
 * at each scrape (OffsetFetch + ListOffsets, allowed by the service's own ACLs), so a consumer that is
 * stuck or gone still shows its growing lag while the process answers. Cardinality: groups × partitions
 * of the service's own topics (a few dozen series). When the broker does not answer, the gauges are
 * empty for that scrape (alert DependencyNotReady says why).
 */
export class ConsumerLagMetrics {
  private cached:
    { readonly at: number; readonly result: Promise<{ lag: LagRow[]; ends: EndOffsets[] }> } | undefined;

  constructor(
    private readonly admin: OffsetsAdmin,
    registry: Registry,
    private readonly groups: readonly string[],
    private readonly topics: readonly string[],
  ) {
    const snapshot = (): Promise<{ lag: LagRow[]; ends: EndOffsets[] }> => this.snapshot();
    new Gauge({
      name: 'kafka_consumer_group_lag',
      help: 'Messages between the consumer group committed offset and the end of the partition',
      labelNames: ['group', 'topic', 'partition'],
      registers: [registry],
      async collect() {
        this.reset();
        const { lag } = await snapshot();
        for (const r of lag)
          this.set({ group: r.group, topic: r.topic, partition: String(r.partition) }, r.lag);
      },
    });
    new Gauge({
      name: 'kafka_topic_partition_end_offset',
      help: 'End offset (high watermark) of each partition of the topics this service touches',
      labelNames: ['topic', 'partition'],
      registers: [registry],
      async collect() {
        this.reset();
        const { ends } = await snapshot();
        for (const t of ends)
          for (const p of t.partitions)
            this.set({ topic: t.topic, partition: String(p.partition) }, Number(p.high));
      },
    });
  }

  private snapshot(now = Date.now()): Promise<{ lag: LagRow[]; ends: EndOffsets[] }> {
    if (!this.cached || now - this.cached.at >= SNAPSHOT_MS)
      this.cached = { at: now, result: this.read().catch(() => ({ lag: [], ends: [] })) };
    return this.cached.result;
  }

  private async read(): Promise<{ lag: LagRow[]; ends: EndOffsets[] }> {
    await this.admin.connect();
    const ends = await Promise.all(
      this.topics.map(async (topic) => ({ topic, partitions: await this.admin.fetchTopicOffsets(topic) })),
    );
    // a group the broker will not describe (not this principal's) leaves only its own rows out
    const perGroup = await Promise.allSettled(
      this.groups.map(async (group) =>
        (await this.admin.fetchOffsets({ groupId: group, topics: [...this.topics] })).map((t) => ({
          group,
          ...t,
        })),
      ),
    );
    const committed = perGroup.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
    return { lag: lagRows(committed, ends), ends };
  }
}
