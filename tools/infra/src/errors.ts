import { isAbsolute, relative } from 'node:path';

/**
 * An error whose message tells the user what to do. The CLI prints only the message
 * (one line); the stack trace is printed only with DEBUG=1.
 */
export class InfraError extends Error {
  constructor(
    message: string,
    /** Extra lines printed after the message (e.g. the tail of a server log). */
    readonly details: readonly string[] = [],
  ) {
    super(message);
    this.name = 'InfraError';
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Formats an error for the terminal: one line, plus details; stack only when DEBUG=1. */
export function formatError(err: unknown, env: NodeJS.ProcessEnv = process.env): string {
  const lines = [errorMessage(err).split('\n')[0] ?? 'unknown error'];
  if (err instanceof InfraError) lines.push(...err.details);
  const debug = env['DEBUG'] === '1' || env['DEBUG'] === 'true';
  if (debug && err instanceof Error && err.stack) lines.push(err.stack);
  return lines.join('\n');
}

/** A path relative to the repository root when inside it, else absolute. */
export function displayPath(root: string, path: string): string {
  const rel = relative(root, path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}
