import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors/app-error';
import type { EndpointSpec } from './endpoint';

/** Matches express-style templates (`/carts/:id`) segment by segment. */
function matches(template: string, path: string): boolean {
  const t = template.split('/').filter(Boolean);
  const p = path.split('/').filter(Boolean);
  return t.length === p.length && t.every((seg, i) => seg.startsWith(':') ? p[i] !== '' : seg === p[i]);
}

const literalSegments = (template: string): number => template.split('/').filter((s) => s && !s.startsWith(':')).length;

/**
 * The methods declared for a path (HEAD follows GET); empty when no template matches it. The most
 * literal templates win, as in the document: `/carts/merge` is its own resource, not `/carts/:id`.
 */
export function allowedMethods(endpoints: readonly EndpointSpec[], path: string): string[] {
  const matching = endpoints.filter((e) => matches(e.path, path));
  const best = Math.max(...matching.map((e) => literalSegments(e.path)));
  const methods = new Set<string>();
  for (const e of matching) {
    if (literalSegments(e.path) !== best) continue;
    methods.add(e.method);
    if (e.method === 'GET') methods.add('HEAD');
  }
  return [...methods].sort();
}

/**
 * An existing path with an undeclared method answers 405 with `Allow` (not 404): clients and
 * contract fuzzers learn the resource exists and which methods it takes. CORS preflights
 * (OPTIONS) are answered earlier by the CORS middleware.
 */
export function methodNotAllowed(endpoints: () => readonly EndpointSpec[]) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const allowed = allowedMethods(endpoints(), req.path);
    if (allowed.length === 0 || allowed.includes(req.method)) return next();
    next(
      new AppError('COMMON.METHOD_NOT_ALLOWED', 'method_not_allowed', `${req.method} is not allowed here; use ${allowed.join(', ')}`, [], {
        Allow: allowed.join(', '),
      }),
    );
  };
}
