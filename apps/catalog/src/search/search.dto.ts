import { z } from 'zod';
import { AttributeKey, MAX_ATTRIBUTES, ObjectIdParam, PriceInput } from '../shared/http-schemas';
import { SORTS } from './search-query';

/** "color:black,ram_gb:8" → {color: 'black', ram_gb: '8'} */
const AttributeFilter = z
  .string()
  .max(2000)
  .transform((text, ctx) => {
    const out: Record<string, string> = {};
    for (const pair of text.split(',')) {
      const at = pair.indexOf(':');
      const key = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (at <= 0 || !AttributeKey.safeParse(key).success || value.length === 0 || value.length > 256) {
        ctx.addIssue({
          code: 'custom',
          message: `"${pair.slice(0, 80)}" is not name:value with a lower-case latin name`,
        });
        return z.NEVER;
      }
      out[key] = value;
    }
    if (Object.keys(out).length > MAX_ATTRIBUTES) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_ATTRIBUTES} attribute filters` });
      return z.NEVER;
    }
    return out;
  });

export const SearchQuery = z
  .strictObject({
    category_id: ObjectIdParam.optional(),
    include_subcategories: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    min_price: PriceInput.optional(),
    max_price: PriceInput.optional(),
    attributes: AttributeFilter.optional(),
    sort: z.enum(SORTS).default('newest'),
    limit: z
      .string()
      .regex(/^\d{1,3}$/, 'must be a whole number 1..100')
      .transform(Number)
      .pipe(z.number().int().min(1).max(100))
      .default(20),
    cursor: z.string().max(500).optional(),
  })
  .refine((q) => q.min_price === undefined || q.max_price === undefined || q.min_price <= q.max_price, {
    message: 'must not exceed max_price',
    path: ['min_price'],
  });
export type SearchQuery = z.infer<typeof SearchQuery>;
