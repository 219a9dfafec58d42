import { z } from 'zod';
import { MAX_ATTRIBUTES, ObjectIdParam, PageLimit, PriceInput } from '../shared/http-schemas';
import { SORTS } from './search-query';

const ATTRIBUTE_PAIR = '[a-z][a-z0-9_]{0,63}:[^,]{1,256}';
/** Exactly what the parser below accepts: 1..50 comma-separated `name:value` pairs. */
const ATTRIBUTE_FILTER = new RegExp(`^${ATTRIBUTE_PAIR}(?:,${ATTRIBUTE_PAIR}){0,${MAX_ATTRIBUTES - 1}}$`);

/** "color:black,ram_gb:8" → {color: 'black', ram_gb: '8'} */
const AttributeFilter = z
  .string()
  .max(2000)
  .regex(
    ATTRIBUTE_FILTER,
    `must be up to ${MAX_ATTRIBUTES} comma-separated name:value pairs with lower-case latin names`,
  )
  .transform((text) => {
    const out: Record<string, string> = {};
    for (const pair of text.split(',')) {
      const at = pair.indexOf(':');
      out[pair.slice(0, at)] = pair.slice(at + 1);
    }
    return out;
  })
  .meta({ description: 'Attribute filters, every one must match', example: 'color:черный,ram_gb:8' });

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
    limit: PageLimit,
    cursor: z
      .string()
      .max(500)
      .optional()
      .meta({ description: 'next_cursor of the previous page (same sort)' }),
  })
  .refine((q) => q.min_price === undefined || q.max_price === undefined || q.min_price <= q.max_price, {
    message: 'must not exceed max_price',
    path: ['min_price'],
  });
export type SearchQuery = z.infer<typeof SearchQuery>;
