import type { paths } from '../api/generated/orders';

type Json<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer B } } } };
}
  ? B
  : never;
export type BasketReport = Json<'/analytics/basket'>;
export type CancellationsReport = Json<'/analytics/cancellations'>;

/** What a chart draws: one label per bar group, one dataset per colour. */
export interface Series {
  readonly labels: readonly string[];
  readonly datasets: readonly { readonly label: string; readonly values: readonly number[] }[];
}

/** The average basket per day (roubles), days ascending. */
export function basketSeries(report: BasketReport, label: string): Series {
  const days = [...report.by_day].sort((a, b) => a.day.localeCompare(b.day));
  return {
    labels: days.map((d) => d.day),
    datasets: [{ label, values: days.map((d) => Number(d.average_basket ?? 0)) }],
  };
}

/** Cancelled orders per reason, the reasons that happened first (most first), then the rest. */
export function cancellationSeries(report: CancellationsReport, label: string): Series {
  const reasons = [...report.by_reason].sort((a, b) => b.cancelled - a.cancelled);
  return {
    labels: reasons.map((r) => r.reason),
    datasets: [{ label, values: reasons.map((r) => r.cancelled) }],
  };
}
