import { AppError } from '@mw/platform';

/** Opaque keyset cursor: the (order_date, id) of the last order on the page. */
export function encodeCursor(date: Date, id: string): string {
  return Buffer.from(`${date.toISOString()}|${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { date: Date; id: string } {
  const [iso, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const date = new Date(iso ?? '');
  if (!id || !/^[0-9a-f]{24}$/.test(id) || Number.isNaN(date.getTime())) {
    throw AppError.validation([{ field: 'query.cursor', message: 'malformed cursor' }]);
  }
  return { date, id };
}
