import fc from 'fast-check';
import { dayOf, daysInRange, daysOf, MAX_RANGE_DAYS, periodsCovering, rangeProblems } from './date-range';

describe('analytics days (UTC days of order_date)', () => {
  it('buckets an instant by its UTC day, even when it is already the next day in Moscow', () => {
    expect(dayOf(new Date('2026-10-31T23:59:59.999Z'))).toBe('2026-10-31');
    expect(dayOf(new Date('2026-11-01T00:00:00.000Z'))).toBe('2026-11-01');
    expect(dayOf(new Date('2026-10-31T21:30:00.000Z'))).toBe('2026-10-31'); // 00:30 on Nov 1 in MSK (UTC+3)
  });

  it('counts inclusive ranges across months, years and a leap day', () => {
    expect(daysInRange('2026-11-21', '2026-11-21')).toBe(1);
    expect(daysOf('2026-12-30', '2027-01-02')).toEqual([
      '2026-12-30',
      '2026-12-31',
      '2027-01-01',
      '2027-01-02',
    ]);
    expect(daysOf('2028-02-28', '2028-03-01')).toEqual(['2028-02-28', '2028-02-29', '2028-03-01']);
    expect(daysInRange('2026-11-02', '2026-11-01')).toBe(0);
  });

  it('refuses a range that ends before it starts or spans more than a leap year, naming `to`', () => {
    expect(rangeProblems('2026-11-01', '2026-11-01')).toEqual([]);
    expect(rangeProblems('2026-11-02', '2026-11-01')).toEqual([
      { field: 'to', message: 'must not be before from (2026-11-02)' },
    ]);
    expect(rangeProblems('2028-01-01', '2028-12-31')).toEqual([]); // 366 days
    expect(MAX_RANGE_DAYS).toBe(366);
    expect(rangeProblems('2027-01-01', '2028-01-02')).toEqual([
      { field: 'to', message: 'the range spans 367 days; at most 366 (from 2027-01-01)' },
    ]);
  });

  it('covers a range with whole months where it can and single days at its edges', () => {
    expect(periodsCovering('2026-11-03', '2026-11-05')).toEqual([
      'D:2026-11-03',
      'D:2026-11-04',
      'D:2026-11-05',
    ]);
    expect(periodsCovering('2026-11-01', '2026-11-30')).toEqual(['M:2026-11']);
    expect(periodsCovering('2026-10-31', '2026-12-01')).toEqual([
      'D:2026-10-31',
      'M:2026-11',
      'D:2026-12-01',
    ]);
    expect(periodsCovering('2028-02-01', '2028-02-29')).toEqual(['M:2028-02']);
    expect(periodsCovering('2028-02-01', '2028-02-28')).toHaveLength(28);
    // 90 days: 16 days of September, October and November whole, 13 days of December — 31 periods, not 90
    expect(periodsCovering('2026-09-15', '2026-12-13')).toHaveLength(16 + 2 + 13);
  });

  it('the periods of any range add up to exactly its days, each day once', () => {
    const expand = (p: string): string[] =>
      p.startsWith('D:')
        ? [p.slice(2)]
        : daysOf(`${p.slice(2)}-01`, dayOf(new Date(Date.UTC(+p.slice(2, 6), +p.slice(7, 9), 0))));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3650 }),
        fc.integer({ min: 1, max: MAX_RANGE_DAYS }),
        (start, span) => {
          const from = dayOf(new Date(Date.UTC(2024, 0, 1 + start)));
          const to = dayOf(new Date(Date.UTC(2024, 0, start + span)));
          const covered = periodsCovering(from, to).flatMap(expand);
          expect(covered).toEqual(daysOf(from, to));
        },
      ),
      { numRuns: 500 },
    );
  });
});
