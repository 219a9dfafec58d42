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

  it('turns the facets (brand, memory, colour) into attribute filters beside the other attributes', () => {
    expect(
      searchQueryFromParams(new URLSearchParams('brand=Apple&storage_gb=256&color=черный')).attributes,
    ).toBe('brand:Apple,storage_gb:256,color:черный');
    // a facet field wins over the same attribute typed in the free field; others stay
    expect(
      searchQueryFromParams(new URLSearchParams('attributes=brand:Sony,os:iOS&brand=Apple')).attributes,
    ).toBe('brand:Apple,os:iOS');
    // a facet value the API would misread (a comma, a colon) is left out
    expect(searchQueryFromParams(new URLSearchParams('brand=Apple,os:x&color=a:b'))).toEqual({});
  });
});
