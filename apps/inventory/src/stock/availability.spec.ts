import pino from 'pino';
import { AvailabilityQuery } from './stock.dto';
import type { StockRepository } from './stock.repository';
import { StockService } from './stock.service';
import type { OutboxNudge } from '../outbox/outbox.service';

const a = '5eed00000000000000000001';
const b = '5eed00000000000000000002';

describe('availability of a page of products (GET /availability)', () => {
  it('parses the ids once each, in the order given', () => {
    expect(AvailabilityQuery.parse({ zone: 'MSK', product_ids: `${b},${a},${b}` })).toEqual({
      zone: 'MSK',
      product_ids: [b, a],
    });
  });

  it.each(['', ',', `${a},`, a.toUpperCase(), `${a} ${b}`, Array.from({ length: 101 }, () => a).join(',')])(
    'refuses product_ids %#, naming the field',
    (ids) => {
      const r = AvailabilityQuery.safeParse({ zone: 'MSK', product_ids: ids });
      expect(r.success).toBe(false);
      expect(r.error?.issues.map((i) => i.path.join('.'))).toEqual(['product_ids']);
    },
  );

  it('answers every product asked for, in order, 0 where the zone never stocked it, from one repository read', async () => {
    const reads: unknown[] = [];
    const repo = {
      availableIn: async (zone: string, ids: readonly string[]) => {
        reads.push([zone, ids]);
        return [{ product_id: b, available: 4 }];
      },
    } as unknown as StockRepository;
    const service = new StockService(
      repo,
      {} as OutboxNudge,
      { ZONES: ['MSK'], INVENTORY_LOW_STOCK_THRESHOLD: 5 },
      pino({ level: 'silent' }),
    );
    expect(await service.availability('MSK', [a, b])).toEqual({
      zone: 'MSK',
      items: [
        { product_id: a, available: 0 },
        { product_id: b, available: 4 },
      ],
    });
    expect(reads).toEqual([['MSK', [a, b]]]);
    await expect(service.availability('NSK', [a])).rejects.toMatchObject({ code: 'INVENTORY.UNKNOWN_ZONE' });
  });
});
