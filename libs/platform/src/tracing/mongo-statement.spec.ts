import { mongoStatementShape } from './mongo-statement';

describe('mongoStatementShape (db.statement of MongoDB spans)', () => {
  it('keeps the command and collection and the field names, never a value', () => {
    const s = mongoStatementShape({ find: 'orders', filter: { _id: 'abc', user_id: 'u-1' }, projection: { _outbox: 0 }, limit: 1 });
    expect(s).toBe('{"find":"orders","filter":{"_id":"?","user_id":"?"},"projection":{"_outbox":"?"},"limit":"?"}');
    expect(s).not.toContain('abc');
  });

  it('writes an array as its length and stops two levels down, so a bulk write costs the same as one update', () => {
    const updates = Array.from({ length: 100 }, (_, i) => ({ q: { _id: `secret-${i}`, version: i }, u: { $set: { saga: { state: 'X' } } }, upsert: true }));
    expect(mongoStatementShape({ update: 'orders', updates, ordered: false, writeConcern: { w: 'majority' } })).toBe(
      '{"update":"orders","updates":"[100]","ordered":"?","writeConcern":{"w":"?"}}',
    );
    expect(mongoStatementShape({ aggregate: 'orders', pipeline: [], cursor: {}, $readPreference: { mode: 'primary', tags: { dc: 'a' } } })).toBe(
      '{"aggregate":"orders","pipeline":"[0]","cursor":{},"$readPreference":{"mode":"?","tags":"{…}"}}',
    );
  });

  it('does not open driver values (dates, ids) nor a null', () => {
    expect(mongoStatementShape({ delete: 'x', filter: { at: new Date(0), n: null } })).toBe('{"delete":"x","filter":{"at":"{…}","n":"?"}}');
    expect(mongoStatementShape({ ping: 1 })).toBe('{"ping":"?"}');
  });
});
