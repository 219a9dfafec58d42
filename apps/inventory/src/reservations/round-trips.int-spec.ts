import { oid } from '../test/harness';
import { countedInventory } from '../test/services';

/**
 * MongoDB commands one ReserveStock / CommitStock costs on the command path, counted with the
 * driver's command monitoring against the real replica set (issue 17: fewer durable round trips).
 * Every command the service sends is one round trip; a bulkWrite of N lines is one command.
 */
describe('round trips per inventory command', () => {
  const { stock, reservations, service, counted } = countedInventory('inventory_round_trips');

  const cases = [
    { lines: 1, series: 1 },
    { lines: 3, series: 2 },
  ];
  it.each(cases)(
    'a $lines-line order: ReserveStock, CommitStock and ReleaseStock take 3 commands each',
    async ({ lines, series }) => {
      const products = Array.from({ length: lines }, (_, i) => oid(0x71 + series, i + 1));
      for (const p of products) await stock.restock(p, 'MSK', 10, 'delivery');
      const [sold, released] = [oid(0x81, series), oid(0x83, series)];
      const reserveOf = (order: string) => () =>
        service.reserve({
          order_id: order,
          zone: 'MSK',
          lines: products.map((product_id) => ({ product_id, qty: 2 })),
          hold_seconds: 600,
        });
      const reserve = await counted(reserveOf(sold));
      const commit = await counted(() => service.commit(sold));
      await service.reserve({
        order_id: released,
        zone: 'MSK',
        lines: products.map((product_id) => ({ product_id, qty: 1 })),
        hold_seconds: 600,
      });
      const release = await counted(() => service.release(released));
      process.stdout.write(
        `round trips, ${lines} line(s): ReserveStock ${reserve.length} [${reserve.join(', ')}]; CommitStock ${commit.length} [${commit.join(', ')}]; ReleaseStock ${release.length} [${release.join(', ')}]\n`,
      );
      expect(await reservations.get(sold)).toMatchObject({ status: 'committed' });
      expect(await reservations.get(released)).toMatchObject({ status: 'released' });
      for (const order of [sold, released]) expect((await reservations.get(order))?.pending).toBeUndefined();
      for (const p of products)
        expect(await stock.findOne(p, 'MSK')).toMatchObject({
          available: 8,
          reserved: 0,
          committed: 2,
          reservations: [],
        });
      expect({ reserve: reserve.length, commit: commit.length, release: release.length }).toEqual({
        reserve: 3,
        commit: 3,
        release: 3,
      });
    },
  );

  it('a sold-out product: the first rejection takes 4 commands, the next ones the fast path of 2 (read, insert)', async () => {
    const p = oid(0x75, 1);
    await stock.restock(p, 'MSK', 1, 'delivery');
    const reject = (n: number) =>
      counted(() =>
        service.reserve({
          order_id: oid(0x82, n),
          zone: 'MSK',
          lines: [{ product_id: p, qty: 2 }],
          hold_seconds: 600,
        }),
      );
    const first = await reject(1);
    const second = await reject(2);
    process.stdout.write(
      `round trips, sold out: first ${first.length} [${first.join(', ')}]; next ${second.length} [${second.join(', ')}]\n`,
    );
    for (const n of [1, 2])
      expect(await reservations.get(oid(0x82, n))).toMatchObject({ status: 'rejected' });
    expect(await stock.findOne(p, 'MSK')).toMatchObject({ available: 1, reserved: 0, reservations: [] });
    expect({ first: first.length, second: second.length }).toEqual({ first: 4, second: 2 });
    // once it is back in stock, the next command takes the read path once more and then holds
    await stock.restock(p, 'MSK', 5, 'delivery');
    await service.reserve({
      order_id: oid(0x82, 3),
      zone: 'MSK',
      lines: [{ product_id: p, qty: 2 }],
      hold_seconds: 600,
    });
    expect(await reservations.get(oid(0x82, 3))).toMatchObject({ status: 'reserved' });
    expect(
      (
        await counted(() =>
          service.reserve({
            order_id: oid(0x82, 4),
            zone: 'MSK',
            lines: [{ product_id: p, qty: 2 }],
            hold_seconds: 600,
          }),
        )
      ).length,
    ).toBe(3);
  });
});
