import { inKeyOrder } from './key-groups';

const tick = () => new Promise((r) => setImmediate(r));

describe('inKeyOrder', () => {
  it("keeps one key's items in their order and runs the keys at once", async () => {
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const items = ['a1', 'b1', 'a2', 'c1', 'b2', 'a3'];
    await inKeyOrder(
      items,
      (i) => i[0]!,
      async (i) => {
        running++;
        most = Math.max(most, running);
        log.push(`start ${i}`);
        await tick();
        log.push(`end ${i}`);
        running--;
      },
    );
    for (const key of ['a', 'b', 'c']) {
      const mine = log.filter((l) => l.endsWith(key + '1') || l.endsWith(key + '2') || l.endsWith(key + '3'));
      // every item of a key ends before its next one starts
      for (let k = 1; k < mine.length; k += 2) expect(mine[k]).toBe(mine[k - 1]!.replace('start', 'end'));
      expect(mine.filter((l) => l.startsWith('start')).map((l) => l.slice(6))).toEqual(
        items.filter((i) => i[0] === key),
      );
    }
    expect(most).toBe(3);
  });

  it('rejects when an item fails (the batch then takes the per-message path)', async () => {
    await expect(
      inKeyOrder([1, 2], String, async (n) => (n === 2 ? Promise.reject(new Error('boom')) : undefined)),
    ).rejects.toThrow('boom');
  });
});
