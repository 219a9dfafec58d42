import type { paths } from '../api/generated/orders';

export type SalesRow =
  paths['/analytics/sales']['get']['responses'][200]['content']['application/json']['rows'][number];

/** Sales cells (day × zone × category) summed per day and zone, days ascending. */
export function salesByDayAndZone(
  rows: readonly SalesRow[],
): { day: string; zone: string; revenue: number; orders: number }[] {
  const cells = new Map<string, { day: string; zone: string; revenue: number; orders: number }>();
  for (const r of rows) {
    const k = `${r.day}|${r.zone}`;
    const c = cells.get(k) ?? { day: r.day, zone: r.zone, revenue: 0, orders: 0 };
    c.revenue += Number(r.revenue);
    c.orders += r.orders;
    cells.set(k, c);
  }
  return [...cells.values()].sort((a, b) => a.day.localeCompare(b.day) || a.zone.localeCompare(b.zone));
}
