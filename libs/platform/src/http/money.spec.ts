import { DecimalMoney, formatMoney } from './money';

describe('money at the edge', () => {
  it.each([
    ['1999.90', 199990],
    ['15', 1500],
    ['0.5', 50],
    ['0', 0],
    ['0.07', 7],
  ])('parses %s as %d kopecks', (s, minor) => expect(DecimalMoney.parse(s)).toBe(minor));

  it.each(['-1', '1e3', '1.999', 'NaN', '', ' 1', '01', '99999999999999', 'Infinity', '0x10'])('rejects %j', (s) => {
    expect(DecimalMoney.safeParse(s).success).toBe(false);
  });

  it('formats minor units with two decimals', () => {
    expect(formatMoney(199990)).toBe('1999.90');
    expect(formatMoney(7)).toBe('0.07');
  });
});
