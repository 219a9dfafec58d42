import { z } from 'zod';

/** Largest amount accepted at the edge by default: 10 billion roubles, far inside Number.MAX_SAFE_INTEGER kopecks. */
const MAX_MINOR = 1_000_000_000_000;

const DECIMAL = /^(0|[1-9]\d{0,12})(?:\.(\d{1,2}))?$/;

export type MoneyParse = { readonly ok: true; readonly minor: number } | { readonly ok: false; readonly reason: string };

/**
 * A decimal string at the HTTP edge ("1999.90", "15", "0.5") → integer minor units (kopecks).
 * No binary floats: the string is split, not parsed as a number. Rejects negatives, exponents,
 * more than two decimals and amounts above `maxMinor`.
 */
export function parseMoney(text: string, maxMinor = MAX_MINOR): MoneyParse {
  const m = DECIMAL.exec(text);
  if (!m) return { ok: false, reason: 'must be a non-negative decimal with at most 2 fraction digits, e.g. "1999.90"' };
  const minor = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  if (minor > maxMinor) return { ok: false, reason: `must not exceed ${formatMoney(maxMinor)}` };
  return { ok: true, minor };
}

/** Zod schema of a decimal money string, yielding minor units. */
export const decimalMoney = (maxMinor = MAX_MINOR) =>
  z.string().transform((text, ctx) => {
    const r = parseMoney(text, maxMinor);
    if (!r.ok) {
      ctx.addIssue({ code: 'custom', message: r.reason });
      return z.NEVER;
    }
    return r.minor;
  });

export const DecimalMoney = decimalMoney();

/** Minor units → decimal string with two decimals. */
export function formatMoney(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
