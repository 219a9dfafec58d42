/**
 * Days of the sales analytics (ADR 0051): UTC calendar days of `order_date`, written
 * `YYYY-MM-DD`, so lexicographic order is chronological and a range is an index range. Plain
 * TypeScript, no framework.
 */

/** Longest inclusive range a query may ask for: a leap year. */
export const MAX_RANGE_DAYS = 366;

const DAY_MS = 86_400_000;

/** The UTC day of an instant. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The UTC month (`YYYY-MM`) of a day. */
export const monthOf = (day: string): string => day.slice(0, 7);

/** Midnight UTC of a day. */
export const startOfDay = (day: string): Date => new Date(`${day}T00:00:00.000Z`);

/** Number of days from `from` to `to`, both included (0 or less when `to` is before `from`). */
export function daysInRange(from: string, to: string): number {
  return Math.round((startOfDay(to).getTime() - startOfDay(from).getTime()) / DAY_MS) + 1;
}

/** Every day of the inclusive range, in order. */
export function daysOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = startOfDay(from).getTime(), end = startOfDay(to).getTime(); t <= end; t += DAY_MS) {
    out.push(dayOf(new Date(t)));
  }
  return out;
}

/** What is wrong with a range (empty when nothing): `from` after `to`, or longer than `maxDays`. */
export function rangeProblems(
  from: string,
  to: string,
  maxDays = MAX_RANGE_DAYS,
): { field: 'from' | 'to'; message: string }[] {
  const n = daysInRange(from, to);
  if (n < 1) return [{ field: 'to', message: `must not be before from (${from})` }];
  if (n > maxDays)
    return [{ field: 'to', message: `the range spans ${n} days; at most ${maxDays} (from ${from})` }];
  return [];
}

/**
 * Product figures are kept per day and per month (ADR 0051): a range reads the months it covers
 * whole and the days at its edges, so a 90-day range reads about 2 months and 30 days of cells
 * instead of 90 days. Period keys: `M:YYYY-MM` and `D:YYYY-MM-DD`.
 */
export const dayPeriod = (day: string): string => `D:${day}`;
export const monthPeriod = (month: string): string => `M:${month}`;

/** The periods whose cells add up to exactly the inclusive range: whole months inside it, single days otherwise. */
export function periodsCovering(from: string, to: string): string[] {
  const out: string[] = [];
  const days = daysOf(from, to);
  for (let i = 0; i < days.length;) {
    const day = days[i]!;
    const month = monthOf(day);
    const monthDays = daysInMonth(month);
    if (day.endsWith('-01') && i + monthDays <= days.length) {
      out.push(monthPeriod(month));
      i += monthDays;
    } else {
      out.push(dayPeriod(day));
      i++;
    }
  }
  return out;
}

function daysInMonth(month: string): number {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}
