import { committedApiDocument } from '@mw/testing';
import { api } from './api';
import { projectorApi } from './projector-api';

describe.each([
  ['catalog API', api],
  ['catalog projector', projectorApi],
])('the committed OpenAPI document of the %s', (_name, description) => {
  it('equals what the endpoint declarations build (run `npm run api:docs` after changing an endpoint)', () => {
    const { committed, built, file } = committedApiDocument(description);
    expect({ file, document: committed }).toEqual({ file, document: built });
  });
});
