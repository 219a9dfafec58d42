import { endpointsOf } from '@mw/platform';
import { committedApiDocument } from '@mw/testing';
import { api } from './api';

describe('carts API document', () => {
  it('the committed docs/api/carts.openapi.json is what the endpoint declarations build', () => {
    const { committed, built, file } = committedApiDocument(api);
    if (JSON.stringify(committed) !== JSON.stringify(built)) {
      console.error(`${file} is stale or missing: run "npm run api:docs" and commit it`);
    }
    expect(committed).toEqual(built);
  });

  it('every documented example is an answer the response schema accepts (the document tells the truth)', () => {
    for (const spec of endpointsOf(api.controllers)) {
      const { schema, example } = spec.response;
      if (schema && example !== undefined)
        expect({ op: spec.operationId, ok: schema.safeParse(example).success }).toEqual({
          op: spec.operationId,
          ok: true,
        });
      if (spec.body && spec.bodyExample !== undefined)
        expect({ op: spec.operationId, body: spec.body.safeParse(spec.bodyExample).success }).toEqual({
          op: spec.operationId,
          body: true,
        });
    }
  });

  it('declares who may call each operation', () => {
    const accessOf = Object.fromEntries(
      endpointsOf(api.controllers).map((s) => [`${s.method} ${s.path}`, s.access]),
    );
    expect(accessOf).toEqual({
      'POST /guest-sessions': { kind: 'public' },
      'POST /carts': { kind: 'user-or-guest' },
      'GET /carts/:id': { kind: 'user-or-guest' },
      'GET /carts': { kind: 'user' },
      'PUT /carts/:id/items/:product_id': { kind: 'user-or-guest' },
      'DELETE /carts/:id/items/:product_id': { kind: 'user-or-guest' },
      'POST /carts/merge': { kind: 'user' },
      'POST /carts/:id/checkout': { kind: 'user', roles: ['customer'] },
      'GET /activity': { kind: 'user', roles: ['customer', 'support', 'operator'] },
    });
  });
});
