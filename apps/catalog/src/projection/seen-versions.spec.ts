import { SeenVersion } from './read-model';
import { SeenVersions } from './seen-versions';

const v = (product: string, version: number): SeenVersion => ({
  product_id: product,
  version,
  deleted: false,
  ancestors: ['electronics'],
  created_at: new Date('2026-01-01T00:00:00.000Z'),
});
const versionsOf = (kept: SeenVersions, ids: string[]) =>
  Object.fromEntries([...kept.lookup(ids).known].map(([id, s]) => [id, s.version]));

describe('seen versions kept in memory between batches', () => {
  it('answers what it remembers and lists the rest to read', () => {
    const kept = new SeenVersions();
    kept.remember([v('a', 3), v('b', 1)], kept.epoch);
    const { known, unknown } = kept.lookup(['a', 'c', 'b']);
    expect([...known.keys()]).toEqual(['a', 'b']);
    expect(unknown).toEqual(['c']);
  });

  it('never goes back to an older version', () => {
    const kept = new SeenVersions();
    kept.remember([v('a', 5)], kept.epoch);
    // a read of product_versions that raced with this member's own write of v5
    kept.remember([v('a', 4)], kept.epoch);
    expect(versionsOf(kept, ['a'])).toEqual({ a: 5 });
    kept.remember([v('a', 6)], kept.epoch);
    expect(versionsOf(kept, ['a'])).toEqual({ a: 6 });
  });

  it('drops everything on a rebalance, and a batch begun before it remembers nothing', () => {
    const kept = new SeenVersions();
    const before = kept.epoch;
    kept.remember([v('a', 3)], before);
    kept.invalidate();
    expect(kept.lookup(['a']).unknown).toEqual(['a']);
    // the batch that began before the rebalance acknowledges its writes afterwards
    kept.remember([v('a', 4), v('b', 2)], before);
    expect(kept.size).toBe(0);
    kept.remember([v('b', 2)], kept.epoch);
    expect(versionsOf(kept, ['a', 'b'])).toEqual({ b: 2 });
  });

  it('forgets a product applied one message at a time', () => {
    const kept = new SeenVersions();
    kept.remember([v('a', 3), v('b', 3)], kept.epoch);
    kept.forget('a');
    expect(kept.lookup(['a', 'b']).unknown).toEqual(['a']);
  });

  it('keeps at most its capacity, the longest unchanged leaving first; capacity 0 keeps nothing', () => {
    const kept = new SeenVersions(2);
    kept.remember([v('a', 1), v('b', 1)], kept.epoch);
    kept.remember([v('a', 2)], kept.epoch); // a is newer now: b is the oldest entry
    kept.remember([v('c', 1)], kept.epoch);
    expect(versionsOf(kept, ['a', 'b', 'c'])).toEqual({ a: 2, c: 1 });
    const none = new SeenVersions(0);
    none.remember([v('a', 1)], none.epoch);
    expect(none.size).toBe(0);
  });
});
