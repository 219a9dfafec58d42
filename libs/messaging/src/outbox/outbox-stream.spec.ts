import { ObjectId } from 'mongodb';
import { docKey, outboxChange } from './outbox-stream';

const e = (id: string, parked = false) => ({
  id,
  topic: 't',
  key: 'k',
  envelope: '{}',
  created_at: new Date(0),
  ...(parked ? { parked: { code: 'MESSAGING.TOPIC_NOT_FOUND', reason: 'r', at: new Date(0) } } : {}),
});

/** Change events in the shapes MongoDB 6.0 reports them (seen by experiment on the local replica set). */
describe('outboxChange: the entries a change event wrote', () => {
  it('an insert or replace: every entry of the document, with its index', () => {
    expect(
      outboxChange({
        operationType: 'insert',
        fullDocument: { _id: 1, _outbox: [e('a'), e('b')] },
      }).added.map((x) => [x.index, x.entry.id]),
    ).toEqual([
      [0, 'a'],
      [1, 'b'],
    ]);
    expect(outboxChange({ operationType: 'replace', fullDocument: { _id: 1 } }).added).toEqual([]);
  });

  it('$push {$each} onto an existing array: one `_outbox.<n>` per element, in index order whatever the field order', () => {
    const ev = {
      operationType: 'update',
      updateDescription: {
        updatedFields: {
          '_outbox.11': e('c'),
          v: 2,
          '_outbox.10': e('b'),
          '_outbox.2.parked': { at: new Date(0) },
        },
        removedFields: [],
        truncatedArrays: [],
      },
    };
    expect(outboxChange(ev).added.map((x) => [x.index, x.entry.id])).toEqual([
      [10, 'b'],
      [11, 'c'],
    ]);
  });

  it('$push onto a missing array: the whole `_outbox`', () => {
    const ev = {
      operationType: 'update',
      updateDescription: { updatedFields: { _outbox: [e('a')] }, removedFields: [] },
    };
    expect(outboxChange(ev).added.map((x) => [x.index, x.entry.id])).toEqual([[0, 'a']]);
  });

  it('a park mark alone adds nothing; a removed park mark names its index', () => {
    expect(
      outboxChange({
        operationType: 'update',
        updateDescription: { updatedFields: { '_outbox.3.parked': {} }, removedFields: [] },
      }).added,
    ).toEqual([]);
    expect(
      outboxChange({
        operationType: 'update',
        updateDescription: { updatedFields: {}, removedFields: ['_outbox.3.parked'] },
      }).unparkedAt,
    ).toBe(3);
  });

  it('a parked element reported whole is passed on with its mark (the relay blocks there)', () => {
    const ev = {
      operationType: 'update',
      updateDescription: { updatedFields: { _outbox: [e('a'), e('b', true), e('c')] }, removedFields: [] },
    };
    expect(outboxChange(ev).added.map((x) => x.entry.parked !== undefined)).toEqual([false, true, false]);
  });

  it('a delete or anything else adds nothing', () => {
    expect(outboxChange({ operationType: 'delete', documentKey: { _id: 1 } }).added).toEqual([]);
  });

  it('documents are keyed by collection and exact _id type', () => {
    const oid = new ObjectId();
    expect(docKey('a', oid)).not.toBe(docKey('a', oid.toHexString()));
    expect(docKey('a', 'x')).not.toBe(docKey('b', 'x'));
    expect(docKey('a', new ObjectId(oid.toHexString()))).toBe(docKey('a', oid));
  });
});
