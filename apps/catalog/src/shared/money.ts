/**
 * Money at the HTTP edge is a decimal string ("1299.90"); inside it is integer kopecks (129990).
 * No binary floats anywhere: parsing and formatting work on the digits.
 */
export const MAX_PRICE_MINOR = 100_000_000_00; // 100 million roubles: beyond any catalogue price

const DECIMAL = /^(0|[1-9]\d{0,9})(?:\.(\d{1,2}))?$/;

export type ParseResult =
  { readonly ok: true; readonly minor: number } | { readonly ok: false; readonly reason: string };

export function parsePrice(text: string): ParseResult {
  const m = DECIMAL.exec(text);
  if (!m)
    return {
      ok: false,
      reason: 'must be a non-negative decimal with at most 2 fraction digits, e.g. "1299.90"',
    };
  const whole = Number(m[1]);
  const fraction = Number((m[2] ?? '').padEnd(2, '0'));
  const minor = whole * 100 + fraction;
  if (minor > MAX_PRICE_MINOR)
    return { ok: false, reason: `must not exceed ${formatPrice(MAX_PRICE_MINOR)}` };
  return { ok: true, minor };
}

export function formatPrice(minor: number): string {
  if (!Number.isSafeInteger(minor) || minor < 0)
    throw new RangeError(`not an amount of minor units: ${minor}`);
  const whole = Math.floor(minor / 100);
  const fraction = minor % 100;
  return `${whole}.${fraction.toString().padStart(2, '0')}`;
}

/** Whole-percent saving of retail against list price (seed 004's pct_savings). */
export function pctSavings(list: number, retail: number): number {
  if (list <= 0 || retail >= list) return 0;
  return Math.floor(((list - retail) * 100) / list);
}
