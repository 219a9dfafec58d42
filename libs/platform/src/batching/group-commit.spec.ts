import { GroupCommit } from './group-commit';

/** A flush the test completes by hand. */
function manual() {
  const flushes: { items: readonly number[]; done: (results: readonly string[] | Error) => void }[] = [];
  const group = new GroupCommit<number, string>(
    (items) =>
      new Promise((resolve, reject) => {
        flushes.push({ items, done: (r) => (r instanceof Error ? reject(r) : resolve(r)) });
      }),
    3,
  );
  return { group, flushes };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('GroupCommit', () => {
  it('flushes the first item at once and groups what arrives during a flush, in order, at most maxItems each', async () => {
    const { group, flushes } = manual();
    const first = group.add(1);
    await tick();
    expect(flushes.map((f) => f.items)).toEqual([[1]]);
    const later = [2, 3, 4, 5].map((n) => group.add(n));
    await tick();
    expect(flushes).toHaveLength(1); // the others wait for the flush in flight
    flushes[0]!.done(['r1']);
    await expect(first).resolves.toBe('r1');
    await tick();
    expect(flushes.map((f) => f.items)).toEqual([[1], [2, 3, 4]]);
    flushes[1]!.done(['r2', 'r3', 'r4']);
    await tick();
    expect(flushes.map((f) => f.items)).toEqual([[1], [2, 3, 4], [5]]);
    flushes[2]!.done(['r5']);
    await expect(Promise.all(later)).resolves.toEqual(['r2', 'r3', 'r4', 'r5']);
    expect(group.stats).toEqual({ flushes: 3, items: 5 });
  });

  it('a failed flush rejects its own items only; the next group still goes', async () => {
    const { group, flushes } = manual();
    const a = group.add(1);
    await tick();
    const b = group.add(2);
    flushes[0]!.done(new Error('write failed'));
    await expect(a).rejects.toThrow('write failed');
    await tick();
    flushes[1]!.done(['ok']);
    await expect(b).resolves.toBe('ok');
  });
});
