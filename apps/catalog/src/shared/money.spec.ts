import { formatPrice, parsePrice, pctSavings } from './money';

describe('price parsing at the HTTP edge', () => {
  it.each([
    ['1299.90', 129990],
    ['1299.9', 129990],
    ['0', 0],
    ['0.01', 1],
    ['15', 1500],
    ['99999999.99', 9999999999],
  ])('"%s" is %d kopecks', (text, minor) => {
    expect(parsePrice(text)).toEqual({ ok: true, minor });
  });

  it.each([
    '-1',
    '1.999',
    'NaN',
    'Infinity',
    '1e5',
    '',
    ' 1',
    '01.00',
    '1,50',
    '0x10',
    '100000000.01',
    '99999999999',
  ])('rejects "%s"', (text) => {
    expect(parsePrice(text).ok).toBe(false);
  });

  it('formats kopecks back to the decimal string without float rounding', () => {
    expect(formatPrice(129990)).toBe('1299.90');
    expect(formatPrice(1)).toBe('0.01');
    expect(formatPrice(0)).toBe('0.00');
    // 0.1 + 0.2 style errors cannot happen: round trip over a range of values
    for (let minor = 0; minor < 2000; minor += 7)
      expect(parsePrice(formatPrice(minor))).toEqual({ ok: true, minor });
  });

  it('computes whole-percent savings', () => {
    expect(pctSavings(100000, 75000)).toBe(25);
    expect(pctSavings(100000, 100000)).toBe(0);
    expect(pctSavings(0, 0)).toBe(0);
    expect(pctSavings(3, 2)).toBe(33);
  });
});
