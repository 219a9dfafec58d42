import { z } from 'zod';
import { AppError, InputSource, validate } from '@mw/platform';

/**
 * Strict validation that names each unknown field (`body.unit_price`, `body.$where`) rather than
 * the whole body: a client that sends a price learns exactly which field is refused.
 */
export function validateStrict<S extends z.ZodObject>(schema: S, value: unknown, source: InputSource, codeFor?: (key: string) => string | undefined): z.infer<S> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const unknown = Object.keys(value).filter((k) => !(k in schema.shape));
    if (unknown.length > 0) {
      const code = unknown.map((k) => codeFor?.(k)).find((c) => c !== undefined);
      throw AppError.validation(
        unknown.slice(0, 20).map((k) => ({ field: `${source}.${k}`, message: codeFor?.(k) ? 'prices and names come from the catalog; send only qty' : 'unknown field' })),
        code,
      );
    }
  }
  return validate(schema, value, source);
}
