import { z } from 'zod';
import { decimalMoney } from '@mw/platform';
import { formatPrice, MAX_PRICE_MINOR } from './money';

export const ObjectIdParam = z
  .string()
  .regex(/^[0-9a-f]{24}$/, 'must be a 24-character lower-case hex ObjectId')
  .meta({ example: '65f1a2b3c4d5e6f708192a3b' });

export const SlugParam = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lower-case latin words joined by hyphens')
  .meta({ example: 'smartfony' });

/** Path parameters of the operations addressing one product or one category. */
export const IdParams = z.strictObject({
  id: ObjectIdParam.meta({ description: 'Product id (ObjectId hex)' }),
});
export const SlugParams = z.strictObject({ slug: SlugParam.meta({ description: 'Category slug' }) });

/**
 * Exactly the decimal strings the money parser accepts up to the catalogue's ceiling
 * (100 000 000.00 ₽), so the documented pattern and the check cannot disagree.
 */
const PRICE_PATTERN = /^(?:(?:0|[1-9]\d{0,7})(?:\.\d{1,2})?|100000000(?:\.0{1,2})?)$/;

/** Decimal string at the edge → kopecks inside. Numbers are refused: they may already be binary floats. */
export const PriceInput = z
  .string()
  .regex(
    PRICE_PATTERN,
    `must be a non-negative decimal with at most 2 fraction digits, at most ${formatPrice(MAX_PRICE_MINOR)}, e.g. "1999.90"`,
  )
  .pipe(decimalMoney(MAX_PRICE_MINOR))
  .meta({ description: 'Decimal roubles, at most two fraction digits', example: '1299.90' });

/** A price as the API answers it: roubles with two decimals. */
export const Money = z
  .string()
  .regex(/^\d+\.\d{2}$/)
  .meta({ description: 'Decimal roubles with two fraction digits', example: '79999.90' });

export const Timestamp = z.iso.datetime().meta({ example: '2026-03-01T10:00:00.000Z' });

export const MAX_ATTRIBUTES = 50;
export const AttributeKey = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, 'attribute names are lower-case latin, digits and _ (max 64)');
export const Attributes = z
  .record(AttributeKey, z.string().min(1).max(256))
  .refine((o) => Object.keys(o).length <= MAX_ATTRIBUTES, `at most ${MAX_ATTRIBUTES} attributes`)
  .meta({ maxProperties: MAX_ATTRIBUTES, example: { color: 'черный', ram_gb: '8' } });

/** Page size of the listing and search queries (a query string is text: coerced, then bounded). */
export const PageLimit = z.coerce
  .number()
  .int()
  .min(1)
  .max(100)
  .default(20)
  .meta({ description: 'Items per page (1..100)' });

export const price = (minor: number): string => formatPrice(minor);
