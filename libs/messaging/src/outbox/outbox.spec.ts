import { createMessage, OutgoingMessage } from '@mw/contracts';
import { AppError } from '@mw/platform';
import { maxEnvelopeBytes } from '../topics/topic-definitions';
import { outboxPush, OutboxEntry, toOutboxEntries } from './outbox';
import { planBatch } from './outbox-batch';

const hex = (n: number): string => n.toString(16).padStart(24, '0');
const msg = (n: number, pad = 1): OutgoingMessage =>
  createMessage('inventory.commands.v1', 'ReleaseStock', { order_id: hex(n) }, { correlation_id: 'c'.repeat(pad), causation_id: null });
const entry = (n: number, pad = 1): OutboxEntry => toOutboxEntries([msg(n, pad)])[0]!;
const limits = { maxBatchBytes: 10_000, maxRecordBytes: 4_000, missingTopics: new Set<string>() };

describe('outbox entries are bounded when written', () => {
  it('refuses an envelope larger than any topic accepts, with a code the caller can answer', () => {
    const big = msg(1, maxEnvelopeBytes);
    let err: unknown;
    try {
      outboxPush([big]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('MESSAGING.MESSAGE_TOO_LARGE');
    expect((err as AppError).kind).toBe('too_large');
  });

  it('accepts an ordinary one', () => {
    expect(outboxPush([msg(1)]).$push._outbox.$each).toHaveLength(1);
  });
});

describe('planBatch', () => {
  it('stops taking entries once the batch holds maxBatchBytes, keeping each document a prefix of its outbox', () => {
    const docs = Array.from({ length: 10 }, (_, i) => ({ _id: i, entries: [entry(i, 1500), entry(i, 1500)] }));
    const plan = planBatch(docs, limits);
    const bytes = plan.send.reduce((n, d) => n + d.bytes, 0);
    expect(bytes).toBeLessThanOrEqual(limits.maxBatchBytes);
    expect(plan.send.length).toBeLessThan(docs.length);
    for (const d of plan.send) expect(d.entries).toEqual(docs[d._id as number]!.entries.slice(0, d.entries.length));
    expect(plan.park).toEqual([]);
  });

  it('always takes the first entry, however large (it is bounded by maxRecordBytes)', () => {
    const plan = planBatch([{ _id: 'a', entries: [entry(1, 1500)] }], { ...limits, maxBatchBytes: 100 });
    expect(plan.send[0]!.entries).toHaveLength(1);
  });

  it('parks the first entry that can never be sent; the later entries of that document wait, other documents go', () => {
    const ok = entry(1);
    const tooBig = entry(2, 5000);
    const after = entry(3);
    const other = entry(4);
    const plan = planBatch(
      [
        { _id: 'd', entries: [ok, tooBig, after] },
        { _id: 'e', entries: [other] },
      ],
      limits,
    );
    expect(plan.send.map((d) => [d._id, d.entries.map((e) => e.id)])).toEqual([
      ['d', [ok.id]],
      ['e', [other.id]],
    ]);
    expect(plan.park.map((p) => [p._id, p.entry.id, p.code])).toEqual([['d', tooBig.id, 'MESSAGING.MESSAGE_TOO_LARGE']]);
  });

  it('parks entries for a missing topic and corrupt entries', () => {
    const gone = { ...entry(1), topic: 'nowhere.v1' };
    const corrupt = { ...entry(2), envelope: '{' };
    const plan = planBatch(
      [
        { _id: 'a', entries: [gone] },
        { _id: 'b', entries: [corrupt] },
      ],
      { ...limits, missingTopics: new Set(['nowhere.v1']) },
    );
    expect(plan.send).toEqual([]);
    expect(plan.park.map((p) => p.code)).toEqual(['MESSAGING.TOPIC_NOT_FOUND', 'MESSAGING.INVALID_OUTBOX_ENTRY']);
  });
});
