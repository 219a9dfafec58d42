import { formatMoney, MoneyParse, parseMoney } from '@mw/platform';

/**
 * Money at the HTTP edge is a decimal string ("1299.90"); inside it is integer kopecks (129990).
 * The digits-only parser is the platform's; the catalogue adds its price ceiling.
 */
export const MAX_PRICE_MINOR = 100_000_000_00; // 100 million roubles: beyond any catalogue price

export type ParseResult = MoneyParse;

export function parsePrice(text: string): ParseResult {
  return parseMoney(text, MAX_PRICE_MINOR);
}

export function formatPrice(minor: number): string {
  if (!Number.isSafeInteger(minor) || minor < 0) throw new RangeError(`not an amount of minor units: ${minor}`);
  return formatMoney(minor);
}

/** Whole-percent saving of retail against list price (seed 004's pct_savings). */
export function pctSavings(list: number, retail: number): number {
  if (list <= 0 || retail >= list) return 0;
  return Math.floor(((list - retail) * 100) / list);
}
