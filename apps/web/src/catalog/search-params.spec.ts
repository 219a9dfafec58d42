import { paramsFromForm, searchQueryFromParams } from './search-params';

describe('search state in the URL', () => {
  it('reads every filter the catalog search takes', () => {
    const q = searchQueryFromParams(
      new URLSearchParams(
        'category_id=65f1a2b3c4d5e6f708192a3b&include_subcategories=false&min_price=1000&max_price=59990.50&attributes=color:черный,ram_gb:8&sort=price_asc',
      ),
    );
    expect(q).toEqual({
      category_id: '65f1a2b3c4d5e6f708192a3b',
      include_subcategories: 'false',
      min_price: '1000',
      max_price: '59990.50',
      attributes: 'color:черный,ram_gb:8',
      sort: 'price_asc',
    });
  });

  it('drops what the API would refuse instead of sending it (a hand-edited link never breaks the page)', () => {
    const q = searchQueryFromParams(
      new URLSearchParams(
        'category_id={"$gt":""}&min_price=-1&max_price=1.999&attributes=Color=red&sort=cheapest',
      ),
    );
    expect(q).toEqual({});
  });

  it('writes only the filled fields, so a link stays short', () => {
    expect(paramsFromForm({ category_id: '', min_price: ' 100 ', sort: 'newest' }).toString()).toBe(
      'min_price=100&sort=newest',
    );
  });
});
