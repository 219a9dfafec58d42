import { z } from 'zod';
import { decimalMoney, validate } from '@mw/platform';
import { formatPrice, MAX_PRICE_MINOR } from './money';

export const ObjectIdParam = z
  .string()
  .regex(/^[0-9a-f]{24}$/, 'must be a 24-character lower-case hex ObjectId');

export const SlugParam = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lower-case latin words joined by hyphens');

/** Decimal string at the edge → kopecks inside. Numbers are refused: they may already be binary floats. */
export const PriceInput = decimalMoney(MAX_PRICE_MINOR);

export const MAX_ATTRIBUTES = 50;
export const AttributeKey = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, 'attribute names are lower-case latin, digits and _ (max 64)');
export const Attributes = z
  .record(AttributeKey, z.string().min(1).max(256))
  .refine((o) => Object.keys(o).length <= MAX_ATTRIBUTES, `at most ${MAX_ATTRIBUTES} attributes`);

export const price = (minor: number): string => formatPrice(minor);

/** OpenAPI schema of a zod input schema, for Swagger decorators. */
export function openApi(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest;
}

const IdParams = z.strictObject({ id: ObjectIdParam });
const SlugParams = z.strictObject({ slug: SlugParam });

/** A path id, reported as `params.id` when malformed. */
export const idParam = (id: string): string => validateParams(IdParams, { id }).id;
export const slugParam = (slug: string): string => validateParams(SlugParams, { slug }).slug;

function validateParams<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  return validate(schema, value, 'params');
}
