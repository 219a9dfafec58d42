import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import { decodeEnvelope, EnvelopeOf } from '@mw/contracts';
import { ConsumerRunner, inBatchSpan, InboundRecord, REDRIVE_GROUP_HEADER } from '@mw/messaging';
import { ProjectorService } from './projector.service';

export const PRODUCTS_TOPIC = 'catalog.products.v1';

/**
 * Messages applied together: their writes go out at once, then their offsets are resolved. Large
 * enough that a fetched batch (FETCH_BYTES_PER_PARTITION) is one chunk, so a product's versions in
 * it are coalesced (ADR 0034 "Coalescing").
 */
export const MESSAGES_PER_APPLY = 10_000;

/**
 * kafkajs maxBytesPerPartition for the projector: a burst's fetch holds several versions of the
 * same products (about 700 bytes an event, so ~6,000 events), which coalesce into one write each.
 */
export const FETCH_BYTES_PER_PARTITION = 4 * 1024 * 1024;

type ProductEnvelope = EnvelopeOf<typeof PRODUCTS_TOPIC>;

/**
 * kafkajs `eachBatch` for the projector (ADR 0034 "Batches"). A fetched partition batch is applied
 * in chunks: every plain message of a chunk (a valid envelope, not a redrive) is applied with
 * ProjectorService.applyAll — few round trips, one mutation per Cassandra partition — and its
 * offsets are resolved only after Cassandra acknowledged every write. Whatever is not plain
 * (unparseable, invalid, redriven) and every message of a chunk whose grouped apply failed twice
 * (before and after its first message went through the runner alone) goes through the
 * ConsumerRunner one at a time, as before: it validates, waits out a Cassandra outage
 * holding the partition, retries, dead-letters exactly the message that cannot succeed. Applying
 * a message twice is harmless (versions and USING TIMESTAMP), so a chunk redone after a crash or a
 * failed grouped apply changes nothing.
 */
export class ProjectorBatches {
  constructor(
    private readonly runner: ConsumerRunner,
    private readonly projector: ProjectorService,
    private readonly logger: Logger,
    private readonly heartbeatEveryMs: number,
  ) {}

  async consume(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale } = payload;
    for (let i = 0; i < batch.messages.length; i += MESSAGES_PER_APPLY) {
      // stopping, or the partition was revoked or seeked: what is not resolved comes back
      if (!isRunning() || isStale()) return;
      const chunk = batch.messages.slice(i, i + MESSAGES_PER_APPLY);
      const records = chunk.map((m) => toRecord(batch.topic, batch.partition, m, heartbeat));
      const plain: { record: InboundRecord; envelope: ProductEnvelope }[] = [];
      const oneByOne: InboundRecord[] = [];
      for (const record of records) {
        const envelope = plainEnvelope(record);
        if (envelope) plain.push({ record, envelope });
        else oneByOne.push(record);
      }
      const where = `${batch.topic}/${batch.partition}@${chunk[0]!.offset}`;
      const together = await inBatchSpan(batch.topic, plain.map((p) => p.record), () =>
        this.applyTogether(plain.map((p) => p.envelope), heartbeat, where),
      );
      const [first, ...rest] = plain;
      if (!together && first) {
        // The runner applies the first message alone: it waits out a Cassandra outage (or
        // dead-letters that message). Then the rest is tried as a group once more, so a chunk of
        // thousands is not applied one by one only because Cassandra was down a moment.
        await this.runner.run(PRODUCTS_TOPIC, first.record, (e) => this.projector.apply(e));
        const again = await inBatchSpan(batch.topic, rest.map((p) => p.record), () =>
          this.applyTogether(rest.map((p) => p.envelope), heartbeat, where),
        );
        if (!again) oneByOne.unshift(...rest.map((p) => p.record));
      }
      for (const record of oneByOne)
        await this.runner.run(PRODUCTS_TOPIC, record, (e) => this.projector.apply(e));
      resolveOffset(chunk[chunk.length - 1]!.offset);
      await commitOffsetsIfNecessary();
      await heartbeat();
    }
  }

  /**
   * The grouped apply, heartbeating meanwhile so the member keeps the partition. False when it
   * failed: the caller then goes message by message. A heartbeat refused because the group
   * rebalanced is rethrown after the writes returned: nothing of the chunk is resolved, kafkajs
   * rejoins and the partition's new owner applies it (again, harmlessly).
   */
  private async applyTogether(
    envelopes: readonly ProductEnvelope[],
    heartbeat: () => Promise<void>,
    where: string,
  ): Promise<boolean> {
    if (envelopes.length === 0) return true;
    let lost: unknown;
    const ticker = setInterval(() => {
      heartbeat().catch((e: unknown) => (lost ??= e));
    }, this.heartbeatEveryMs);
    let applied = true;
    try {
      await this.projector.applyAll(envelopes);
    } catch (e) {
      applied = false;
      this.logger.warn(
        { where, messages: envelopes.length, err: e instanceof Error ? e.message : String(e) },
        'grouped apply failed; applying the chunk one message at a time',
      );
    }
    clearInterval(ticker);
    if (lost !== undefined) throw lost;
    return applied;
  }
}

function toRecord(
  topic: string,
  partition: number,
  m: KafkaMessage,
  heartbeat: () => Promise<void>,
): InboundRecord {
  return {
    topic,
    partition,
    offset: m.offset,
    key: m.key,
    value: m.value,
    headers: m.headers,
    heartbeat,
  };
}

/** The envelope of a message that needs nothing but applying: valid, and not a redrive (the runner decides those). */
function plainEnvelope(record: InboundRecord): ProductEnvelope | undefined {
  if (record.value === null || record.headers?.[REDRIVE_GROUP_HEADER] !== undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.isBuffer(record.value) ? record.value.toString('utf8') : record.value);
  } catch {
    return undefined;
  }
  const decoded = decodeEnvelope(PRODUCTS_TOPIC, value);
  return decoded.ok ? decoded.envelope : undefined;
}
