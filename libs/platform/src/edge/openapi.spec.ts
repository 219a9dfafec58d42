import { Controller } from '@nestjs/common';
import { z } from 'zod';
import { HealthController } from '../health/health';
import { MetricsController } from '../metrics/metrics';
import { access } from './access';
import { Endpoint, endpoint } from './endpoint';
import { buildOpenApi } from './openapi';

interface Node {
  name: string;
  children: Node[];
}
const TreeNode: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(TreeNode) }));

const getThing = endpoint({
  operationId: 'getThing',
  method: 'GET',
  path: '/things/:id',
  tag: 'things',
  summary: 'A thing',
  access: access.userOrGuest,
  params: z.strictObject({ id: z.uuid() }),
  query: z.strictObject({ limit: z.coerce.number().int().min(1).max(50).default(10), q: z.string().optional(), zone: z.string() }),
  response: { status: 200, description: 'The thing', schema: z.object({ id: z.string() }), example: { id: 'x' } },
});
const createThing = endpoint({
  operationId: 'createThing',
  method: 'POST',
  path: '/things',
  tag: 'things',
  summary: 'Create',
  access: access.roles('catalog_manager'),
  body: z.strictObject({ name: z.string().min(1) }),
  bodyExample: { name: 'n' },
  response: { status: 201, description: 'Created', schema: TreeNode },
  errors: [409],
});

@Controller()
class ThingsController {
  @Endpoint(getThing)
  get(): string {
    return 'thing';
  }
  @Endpoint(createThing)
  create(): string {
    return 'created';
  }
}

type Doc = {
  paths: Record<string, Record<string, { parameters?: Array<Record<string, unknown>>; responses: Record<string, unknown>; security: unknown[]; requestBody?: unknown }>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

describe('OpenAPI from endpoint declarations', () => {
  const doc = buildOpenApi(
    { name: 't', title: 'T', description: 'd', version: '1', controllers: [ThingsController], guestSessions: true },
    [HealthController, MetricsController],
  ) as unknown as Doc;

  it('declares path and query parameters with their schemas and whether they are required', () => {
    const params = doc.paths['/things/{id}']?.['get']?.parameters ?? [];
    expect(params.map((p) => [p['name'], p['in'], p['required']])).toEqual([
      ['id', 'path', true],
      ['limit', 'query', false],
      ['q', 'query', false],
      ['zone', 'query', true],
    ]);
    expect(params[1]?.['schema']).toMatchObject({ type: 'integer', minimum: 1, maximum: 50, default: 10 });
  });

  it('documents the errors that follow from the shape, with the problem body', () => {
    expect(Object.keys(doc.paths['/things/{id}']?.['get']?.responses ?? {})).toEqual(['200', '400', '401', '404', '422', '503']);
    expect(Object.keys(doc.paths['/things']?.['post']?.responses ?? {})).toEqual([
      '201', '400', '401', '403', '409', '413', '415', '422', '429', '503',
    ]);
    expect(doc.paths['/things']?.['post']?.responses['429']).toMatchObject({
      headers: { 'Retry-After': expect.anything() },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Problem' } } },
    });
    expect(Object.keys(doc.paths['/health']?.['get']?.responses ?? {})).toEqual(['200']);
  });

  it('names the security of each operation; public ones need none', () => {
    expect(doc.paths['/things/{id}']?.['get']?.security).toEqual([{ bearer: [] }, { guestSession: [] }]);
    expect(doc.paths['/things']?.['post']?.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/health']?.['get']?.security).toEqual([]);
    expect(doc.paths['/metrics']?.['get']?.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['bearer', 'guestSession']);
  });

  it('moves recursive definitions into components so every $ref resolves', () => {
    const text = JSON.stringify(doc);
    const refs = [...text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1] as string);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(Object.keys(doc.components.schemas)).toContain(ref);
    expect(text).not.toContain('"#/$defs/');
  });
});
