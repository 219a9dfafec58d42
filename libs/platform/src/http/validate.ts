import { z } from 'zod';
import { AppError } from '../errors/app-error';

export type InputSource = 'body' | 'query' | 'params' | 'headers';

/**
 * Validates untrusted input with a strict schema. Unknown keys (including MongoDB operators
 * such as `$where` or `price[$gt]`) are rejected by `.strict()` schemas, objects where a
 * scalar is expected fail the type check: nothing user-controlled reaches a query as an operator.
 */
export function validate<S extends z.ZodType>(schema: S, value: unknown, source: InputSource): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.slice(0, 20).map((i) => ({
    field: [source, ...i.path.map(String)].join('.'),
    message: i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}` : i.message,
  }));
  // Only refinements failed (retail ≤ list…): the input matches every documented constraint, the
  // document cannot state the rule — 422, while 400 stays "does not match the document" (ADR 0007).
  if (result.error.issues.every((i) => i.code === 'custom')) throw AppError.unprocessable(problems);
  throw AppError.validation(problems);
}
