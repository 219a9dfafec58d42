import { en, ru, translate } from './messages';

describe('message catalog', () => {
  it('fills placeholders and leaves unknown ones visible', () => {
    expect(translate('en', 'nav.cart', { count: 3 })).toBe('Cart (3)');
    expect(translate('en', 'order.title')).toBe('Order {id}');
  });

  it('falls back to English for what a locale does not translate yet', () => {
    expect(translate('ru', 'nav.cart', { count: 2 })).toBe('Корзина (2)');
    expect(translate('ru', 'cart.checkout')).toBe(en['cart.checkout']);
  });

  it('a locale only translates keys English has', () => {
    expect(Object.keys(ru).filter((k) => !(k in en))).toEqual([]);
  });
});
