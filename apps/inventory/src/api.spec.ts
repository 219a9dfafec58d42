import { endpointsOf } from '@mw/platform';
import { committedApiDocument } from '@mw/testing';
import { api } from './api';

describe('inventory API document', () => {
  it('the committed docs/api/inventory.openapi.json is the one the endpoint declarations build', () => {
    const { committed, built, file } = committedApiDocument(api);
    expect({ file, document: committed ?? 'missing: run `npm run api:docs` and commit it' }).toEqual({ file, document: built });
  });

  it.each(endpointsOf(api.controllers).map((e) => [e.operationId, e] as const))('%s: its examples are valid for its schemas', (_id, e) => {
    const { schema, example } = e.response;
    expect(schema).toBeDefined();
    expect(example).toBeDefined();
    // parsing drops undeclared fields, so an example with a field the schema lacks fails too
    expect(schema?.parse(example)).toEqual(example);
    if (e.body) expect(e.body.safeParse(e.bodyExample).error).toBeUndefined();
  });
});
