import { validateInput } from '@mw/platform';
import { BasketReport, CancellationsReport, SalesReport, TopProductsReport } from './analytics-view';
import {
  basketExample,
  cancellationsExample,
  getBasket,
  getCancellations,
  getSales,
  getTopProducts,
  salesExample,
  topProductsExample,
} from './analytics.endpoints';

const query = (spec: Parameters<typeof validateInput>[0], q: Record<string, string>) =>
  validateInput(spec, { params: {}, query: q, body: undefined }).query;
const problem = (spec: Parameters<typeof validateInput>[0], q: Record<string, string>) => {
  try {
    query(spec, q);
    return null;
  } catch (e) {
    const err = e as { code: string; kind: string; errors: { field: string }[] };
    return { code: err.code, kind: err.kind, fields: err.errors.map((x) => x.field) };
  }
};

describe('analytics API declarations', () => {
  it('documents examples that are valid answers', () => {
    expect(SalesReport.parse(salesExample)).toEqual(salesExample);
    expect(TopProductsReport.parse(topProductsExample)).toEqual(topProductsExample);
    expect(BasketReport.parse(basketExample)).toEqual(basketExample);
    expect(CancellationsReport.parse(cancellationsExample)).toEqual(cancellationsExample);
    expect([getSales, getTopProducts, getBasket, getCancellations].map((e) => e.access)).toEqual(
      Array(4).fill({ kind: 'user', roles: ['operator'] }),
    );
  });

  it('takes an inclusive range of real dates, a zone, a category or `uncategorized`, defaults for ranking', () => {
    expect(
      query(getTopProducts, {
        from: '2028-02-01',
        to: '2028-02-29',
        zone: 'EKB',
        category_id: 'uncategorized',
      }),
    ).toEqual({
      from: '2028-02-01',
      to: '2028-02-29',
      zone: 'EKB',
      category_id: 'uncategorized',
      by: 'revenue',
      limit: 10,
    });
    expect(query(getSales, { from: '2026-11-21', to: '2026-11-21' })).toEqual({
      from: '2026-11-21',
      to: '2026-11-21',
    });
  });

  it('a range backwards or longer than 366 days is a 422 naming `to`; a malformed date a 400 naming it', () => {
    expect(problem(getSales, { from: '2026-11-02', to: '2026-11-01' })).toEqual({
      code: 'COMMON.RULE_VIOLATED',
      kind: 'unprocessable',
      fields: ['query.to'],
    });
    expect(problem(getBasket, { from: '2027-01-01', to: '2028-01-02' })).toEqual({
      code: 'COMMON.RULE_VIOLATED',
      kind: 'unprocessable',
      fields: ['query.to'],
    });
    expect(problem(getBasket, { from: '2028-01-01', to: '2028-12-31' })).toBeNull();
    expect(problem(getCancellations, { from: '2026-02-29', to: '2026-03-01' })).toEqual({
      code: 'COMMON.VALIDATION_FAILED',
      kind: 'validation',
      fields: ['query.from'],
    });
    expect(problem(getCancellations, { from: '2026-03-01', to: '2026-3-2' })).toEqual({
      code: 'COMMON.VALIDATION_FAILED',
      kind: 'validation',
      fields: ['query.to'],
    });
    expect(problem(getSales, { from: '2026-03-01', to: '2026-03-02', zone: '$gt' })).toEqual({
      code: 'COMMON.VALIDATION_FAILED',
      kind: 'validation',
      fields: ['query.zone'],
    });
  });
});
