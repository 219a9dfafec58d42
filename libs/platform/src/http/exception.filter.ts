import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError, httpStatusOf } from '../errors/app-error';
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
    const { status, body } = this.toProblem(exception);
    if (status >= 500) this.logger.error({ err: exception, path: req.path }, 'request failed');
    res.status(status).json({ ...body, correlation_id: currentTrace()?.correlation_id });
  }

  private toProblem(exception: unknown): { status: number; body: Record<string, unknown> } {
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
      return { status: 413, body: { code: 'COMMON.PAYLOAD_TOO_LARGE', message: 'request body too large', errors: [{ field: 'body', message: 'too large' }] } };
    }
    if (e?.type === 'entity.parse.failed') {
      return { status: 400, body: { code: 'COMMON.MALFORMED_JSON', message: 'request body is not valid JSON', errors: [{ field: 'body', message: 'malformed JSON' }] } };
    }
    return { status: 500, body: { code: 'COMMON.INTERNAL', message: 'internal error', errors: [] } };
  }
}
