import { en, formatMoney, ru, translate } from './messages';

describe('message catalog', () => {
  it('fills placeholders and leaves unknown ones visible', () => {
    expect(translate('en', 'nav.cart', { count: 3 })).toBe('Cart (3)');
    expect(translate('en', 'order.title')).toBe('Order {id}');
    expect(translate('ru', 'stock.few', { count: 2 })).toBe('Осталось 2 шт.');
  });

  it('Russian is complete: every English key has its own Russian text with the same placeholders', () => {
    const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    expect(Object.keys(ru).sort()).toEqual(Object.keys(en).sort());
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      expect({ key, placeholders: placeholders(ru[key]) }).toEqual({
        key,
        placeholders: placeholders(en[key]),
      });
      // a Russian text is Russian, unless it is a name (Kafka) or a symbol
      if (/[a-z]{4}/i.test(en[key]) && !/Kafka/.test(en[key]))
        expect({ key, text: ru[key] }).not.toEqual({ key, text: en[key] });
    }
  });

  it('formats roubles for ru-RU (grouped by spaces, decimal comma, ₽ after) and for English', () => {
    expect(formatMoney('ru', '59990.00').replace(/\s/g, ' ')).toBe('59 990,00 ₽');
    expect(formatMoney('ru', '7.5').replace(/\s/g, ' ')).toBe('7,50 ₽');
    expect(formatMoney('en', '59990')).toBe('59,990.00 ₽');
  });
});
