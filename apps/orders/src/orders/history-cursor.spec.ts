import { AppError } from '@mw/platform';
import { CURSOR_PATTERN, decodeCursor, encodeCursor } from './history-cursor';

describe('history cursor', () => {
  it('round-trips the position of the last order of a page, in the documented shape', () => {
    const date = new Date('2026-11-21T10:00:00.118Z');
    const cursor = encodeCursor(date, '56e540608eca05a5f7400db0');
    expect(cursor).toBe('1795255200118-56e540608eca05a5f7400db0');
    expect(cursor).toMatch(CURSOR_PATTERN);
    expect(decodeCursor(cursor)).toEqual({ date, id: '56e540608eca05a5f7400db0' });
  });

  it('accepts every string of the pattern, even the largest (a position, not a secret)', () => {
    expect(decodeCursor(`${'9'.repeat(15)}-${'f'.repeat(24)}`).date.getTime()).toBe(999_999_999_999_999);
    expect(decodeCursor(`0-${'0'.repeat(24)}`).date.getTime()).toBe(0);
  });

  it('refuses anything else with 400 naming query.cursor', () => {
    for (const bad of ['', 'nope', `1-${'0'.repeat(23)}`, `1-${'G'.repeat(24)}`, `${'9'.repeat(16)}-${'0'.repeat(24)}`, `-1-${'0'.repeat(24)}`]) {
      expect(() => decodeCursor(bad)).toThrow(AppError);
      try {
        decodeCursor(bad);
      } catch (e) {
        expect((e as AppError).errors).toEqual([{ field: 'query.cursor', message: 'malformed cursor' }]);
      }
    }
  });
});
