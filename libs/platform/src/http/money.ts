import { z } from 'zod';

/** Largest amount accepted at the edge: 10 billion roubles, far inside Number.MAX_SAFE_INTEGER kopecks. */
const MAX_MINOR = 1_000_000_000_000;

/**
 * A decimal string at the HTTP edge ("1999.90", "15", "0.5") → integer minor units (kopecks).
 * No binary floats: the string is split, not parsed as a number. Rejects negatives, exponents,
 * more than two decimals and absurd magnitudes.
 */
export const DecimalMoney = z
  .string()
  .max(20)
  .regex(/^(0|[1-9]\d{0,12})(\.\d{1,2})?$/, 'must be a non-negative decimal amount with at most 2 decimals, e.g. "1999.90"')
  .transform((s, ctx) => {
    const [whole = '0', frac = ''] = s.split('.');
    const minor = Number(whole) * 100 + Number(frac.padEnd(2, '0'));
    if (minor > MAX_MINOR) ctx.addIssue({ code: 'custom', message: 'amount too large' });
    return minor;
  });

/** Minor units → decimal string with two decimals. */
export function formatMoney(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
