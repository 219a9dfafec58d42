import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { activeTraceIds } from '../tracing/propagation';
import { currentTrace } from './trace-context';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * A pino JSON logger whose every line carries the current correlation and causation ids and, while
 * a span is active (tracing on: ADR 0014), its `trace_id` and `span_id`.
 */
export function createLogger(service: string, level: LogLevel = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const t = currentTrace();
      const ids = activeTraceIds();
      return {
        ...(t ? { correlation_id: t.correlation_id, causation_id: t.causation_id } : {}),
        ...(ids ?? {}),
      };
    },
  });
}

/** Adapter so Nest's own logs are JSON lines too. */
export class JsonLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string): void {
    this.write('info', message, context);
  }
  error(message: unknown, trace?: string, context?: string): void {
    // Start-up failures are reported once, as one line, by exitOnStartupError.
    if (context === 'ExceptionHandler') return;
    this.logger.error({ context, stack: trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }
  private write(level: 'info' | 'warn' | 'debug' | 'trace', message: unknown, context?: string): void {
    if (typeof message === 'object' && message !== null) this.logger[level]({ context, ...message });
    else this.logger[level]({ context }, String(message));
  }
}
