import { AppError } from '@mw/platform';

/**
 * Keyset cursor of the order history: the (order_date, id) of the last order on a page, as
 * `<epoch ms>-<order id>`. Every string of this shape is a valid position, so the document's
 * pattern says exactly what is accepted (a fuzzer's conforming cursor is answered with a page).
 */
export const CURSOR_PATTERN = /^(\d{1,15})-([0-9a-f]{24})$/;

export function encodeCursor(date: Date, id: string): string {
  return `${date.getTime()}-${id}`;
}

export function decodeCursor(cursor: string): { date: Date; id: string } {
  const match = CURSOR_PATTERN.exec(cursor);
  const date = new Date(Number(match?.[1]));
  if (!match?.[2] || Number.isNaN(date.getTime())) {
    throw AppError.validation([{ field: 'query.cursor', message: 'malformed cursor' }]);
  }
  return { date, id: match[2] };
}
