import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { runWithTrace } from '../logging/trace-context';

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes `x-correlation-id` from the caller (if well-formed) or makes one; echoes it back. */
export function correlationMiddleware(req: Request, res: Response, next: NextFunction): void {
  const header = req.header('x-correlation-id');
  const correlation_id = header && VALID_ID.test(header) ? header : randomUUID();
  const message_id = randomUUID();
  res.setHeader('x-correlation-id', correlation_id);
  runWithTrace({ correlation_id, causation_id: null, message_id }, () => next());
}
