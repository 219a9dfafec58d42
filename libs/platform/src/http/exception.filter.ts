import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError, httpStatusOf } from '../errors/app-error';
import { isInfrastructureError } from '../errors/failure-class';
import { currentTrace } from '../logging/trace-context';

/**
 * Maps errors to an HTTP problem body `{ code, message, errors[], correlation_id }`.
 * Only handles HTTP; errors in Kafka handlers are rethrown to the transport (the consumer
 * runner decides retry or dead-letter).
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request>();
    sendProblem(req, res, exception, this.logger);
  }
}

/**
 * Answers with the problem body of an error; also used by plain express middleware (body parser,
 * 405), whose errors never reach Nest's filters.
 */
export function sendProblem(req: Request, res: Response, exception: unknown, logger: Logger): void {
  const { status, body } = toProblem(exception);
  if (status >= 500) logger.error({ err: exception, path: req.path }, 'request failed');
  if (exception instanceof AppError)
    for (const [name, value] of Object.entries(exception.headers)) res.setHeader(name, value);
  res.status(status).json({ ...body, correlation_id: currentTrace()?.correlation_id });
}

function toProblem(exception: unknown): { status: number; body: Record<string, unknown> } {
  if (exception instanceof AppError) {
    return {
      status: httpStatusOf(exception.kind),
      body: { code: exception.code, message: exception.message, errors: exception.errors },
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    return { status, body: { code: `HTTP.${status}`, message: exception.message, errors: [] } };
  }
  const e = exception as { type?: string; status?: number; message?: string };
  // body-parser errors: payload too large, malformed JSON
  if (e?.type === 'entity.too.large') {
    return {
      status: 413,
      body: {
        code: 'COMMON.PAYLOAD_TOO_LARGE',
        message: 'request body too large',
        errors: [{ field: 'body', message: 'too large' }],
      },
    };
  }
  if (e?.type === 'entity.parse.failed') {
    return {
      status: 400,
      body: {
        code: 'COMMON.MALFORMED_JSON',
        message: 'request body is not valid JSON',
        errors: [{ field: 'body', message: 'malformed JSON' }],
      },
    };
  }
  // other body-parser refusals (unsupported charset or encoding, aborted request) carry their 4xx status
  if (typeof e?.type === 'string' && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return {
      status: e.status,
      body: {
        code: 'COMMON.UNREADABLE_BODY',
        message: e.message ?? 'request body refused',
        errors: [{ field: 'body', message: e.type }],
      },
    };
  }
  // a database, broker or socket that does not answer: the request may succeed later (503, as documented)
  if (isInfrastructureError(exception)) {
    return { status: 503, body: { code: 'COMMON.DEPENDENCY_UNAVAILABLE', message: 'a dependency is unavailable; retry later', errors: [] } };
  }
  return { status: 500, body: { code: 'COMMON.INTERNAL', message: 'internal error', errors: [] } };
}
