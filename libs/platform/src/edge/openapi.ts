import type { Type } from '@nestjs/common';
import { z } from 'zod';
import { endpointsOf, rateLimitOf, type EndpointSpec } from './endpoint';

/** What a service publishes about its HTTP API: the document is built from these controllers' declarations. */
export interface ApiDescription {
  /** Service name, also the file name under docs/api/. */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly version: string;
  /** Every controller of the service with HTTP routes (startup refuses a routed controller missing here). */
  readonly controllers: readonly Type<unknown>[];
  /** The service accepts signed guest sessions (carts). */
  readonly guestSessions?: boolean;
}

type JsonSchema = Record<string, unknown>;

/** The problem body every error answers with (libs/platform HttpErrorFilter). */
export const ProblemBody = z
  .object({
    code: z
      .string()
      .meta({ description: 'Stable error code, e.g. CARTS.NOT_FOUND', example: 'COMMON.VALIDATION_FAILED' }),
    message: z.string(),
    errors: z.array(z.object({ field: z.string().meta({ example: 'body.qty' }), message: z.string() })),
    correlation_id: z.string().optional(),
  })
  .meta({ description: 'An error: a stable code, a message and the offending fields' });

const ERROR_TEXT: Readonly<Record<number, string>> = {
  400: 'Invalid input: `errors[].field` names each offending field (`params.id`, `query.limit`, `body.qty`)',
  401: 'Missing, malformed, expired or otherwise invalid credentials (code AUTH.*)',
  403: 'The token lacks the role this operation needs (AUTH.FORBIDDEN)',
  404: "Not found — also what a customer gets for somebody else's resource (existence is not leaked)",
  409: 'Conflicts with the current state of the resource',
  412: 'The precondition does not hold: the resource changed since the version sent in If-Match (its current ETag is in the answer)',
  413: 'Request body larger than the service accepts (COMMON.PAYLOAD_TOO_LARGE)',
  415: 'Request body in an unsupported encoding or charset',
  422: 'Matches this document but breaks a rule it cannot state (a referenced resource that does not exist, a cross-field rule, a cursor not issued here); `errors[].field` names the field',
  428: 'This write must be conditional: send If-Match with the ETag of the version you read (COMMON.PRECONDITION_REQUIRED)',
  429: 'Too many calls of this kind by this caller (writes, expensive reads, new guest sessions per address); retry after `Retry-After` seconds (COMMON.RATE_LIMITED)',
  503: 'A dependency (database, broker, identity provider) is unavailable, or the rate limiter has no room for a new caller (COMMON.OVERLOADED, with `Retry-After`); retry later',
};

/** JSON Schema (2020-12, as OpenAPI 3.1 uses) of a zod schema; `$defs` move into components.schemas. */
function jsonSchemaOf(
  schema: z.ZodType,
  io: 'input' | 'output',
  prefix: string,
  components: Record<string, JsonSchema>,
): JsonSchema {
  const raw = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete raw['$schema'];
  const defs = raw['$defs'] as Record<string, JsonSchema> | undefined;
  delete raw['$defs'];
  const rename = (name: string): string => `${prefix}_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/'))
        out[k] = `#/components/schemas/${rename(v.slice(8))}`;
      else if (k === '$ref' && v === '#') out[k] = `#/components/schemas/${prefix}`;
      else out[k] = rewrite(v);
    }
    return out;
  };
  for (const [name, def] of Object.entries(defs ?? {})) components[rename(name)] = rewrite(def) as JsonSchema;
  const result = rewrite(raw) as JsonSchema;
  if (JSON.stringify(raw).includes('"$ref":"#"')) components[prefix] = result;
  return result;
}

function parametersOf(spec: EndpointSpec, components: Record<string, JsonSchema>): JsonSchema[] {
  const out: JsonSchema[] = [];
  const add = (where: 'path' | 'query' | 'header', shape: z.ZodObject | undefined): void => {
    if (!shape) return;
    for (const [name, field] of Object.entries(shape.shape as Record<string, z.ZodType>)) {
      const schema = jsonSchemaOf(field, 'input', `${spec.operationId}_${where}_${name}`, components);
      const description = (schema['description'] as string | undefined) ?? undefined;
      out.push({
        name,
        in: where,
        required: where === 'path' || !field.safeParse(undefined).success,
        ...(description ? { description } : {}),
        schema,
      });
    }
  };
  add('path', spec.params);
  add('query', spec.query);
  add('header', spec.headers);
  return out;
}

function errorStatusesOf(spec: EndpointSpec): number[] {
  const statuses = new Set<number>(spec.errors ?? []);
  // an addressed resource may not exist (or belong to somebody else)
  if (spec.params) statuses.add(404);
  if (spec.params || spec.query || spec.body || spec.headers) statuses.add(400);
  // input that matches the document but breaks a rule it cannot state (a referenced id that does not exist, retail > list)
  if (spec.query || spec.body) statuses.add(422);
  if (spec.access.kind !== 'public') {
    statuses.add(401);
    statuses.add(503);
  }
  if (spec.access.kind === 'user' && spec.access.roles && spec.access.roles.length > 0) statuses.add(403);
  if (spec.body) {
    statuses.add(413);
    statuses.add(415);
  }
  if (rateLimitOf(spec)) {
    statuses.add(429);
    statuses.add(503);
  }
  return [...statuses].sort((a, b) => a - b);
}

function securityOf(spec: EndpointSpec): JsonSchema[] {
  switch (spec.access.kind) {
    case 'public':
      return [];
    case 'user':
      return [{ bearer: [] }];
    case 'optional-user':
      return [{}, { bearer: [] }];
    case 'user-or-guest':
      return [{ bearer: [] }, { guestSession: [] }];
  }
}

function accessText(spec: EndpointSpec): string {
  switch (spec.access.kind) {
    case 'public':
      return 'Access: anyone.';
    case 'user':
      return spec.access.roles?.length
        ? `Access: a token with the role ${spec.access.roles.join(' or ')}.`
        : 'Access: any signed-in user.';
    case 'user-or-guest':
      return 'Access: a signed-in user, or a guest session (`X-Guest-Session`).';
    case 'optional-user':
      return 'Access: anyone; a bearer token, when sent, must be valid, and some roles see more (described above).';
  }
}

/** The OpenAPI 3.1 document of a service, from its endpoint declarations (ADR 0007). */
export function buildOpenApi(
  api: ApiDescription,
  extraControllers: readonly Type<unknown>[] = [],
): JsonSchema {
  const components: Record<string, JsonSchema> = {};
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const problem = jsonSchemaOf(ProblemBody, 'output', 'Problem', components);
  components['Problem'] = problem;
  for (const spec of endpointsOf([...api.controllers, ...extraControllers])) {
    const path = spec.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const responses: Record<string, JsonSchema> = {};
    const ok = spec.response;
    const contentType = ok.contentType ?? 'application/json';
    responses[String(ok.status)] = {
      description: ok.description,
      ...(ok.schema && ok.status !== 204
        ? {
            content: {
              [contentType]: {
                schema: jsonSchemaOf(ok.schema, 'output', `${spec.operationId}_response`, components),
                ...(ok.example !== undefined ? { example: ok.example } : {}),
              },
            },
          }
        : {}),
    };
    for (const [status, other] of Object.entries(spec.otherResponses ?? {})) {
      responses[status] = {
        description: other.description,
        content: {
          'application/json': {
            schema: jsonSchemaOf(other.schema, 'output', `${spec.operationId}_${status}`, components),
          },
        },
      };
    }
    for (const status of errorStatusesOf(spec)) {
      if (responses[String(status)]) continue;
      const headers: Record<string, JsonSchema> = {};
      if (status === 429 || (status === 503 && rateLimitOf(spec)))
        headers['Retry-After'] = { description: 'Seconds to wait', schema: { type: 'integer', minimum: 1 } };
      if (status === 401)
        headers['WWW-Authenticate'] = { description: 'Bearer challenge', schema: { type: 'string' } };
      responses[String(status)] = {
        description: ERROR_TEXT[status] ?? 'Error',
        ...(Object.keys(headers).length ? { headers } : {}),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Problem' } } },
      };
    }
    const operation: JsonSchema = {
      operationId: spec.operationId,
      tags: [spec.tag],
      summary: spec.summary,
      description: [spec.description, accessText(spec)].filter(Boolean).join('\n\n'),
      ...(spec.params || spec.query || spec.headers ? { parameters: parametersOf(spec, components) } : {}),
      ...(spec.body
        ? {
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: jsonSchemaOf(spec.body, 'input', `${spec.operationId}_body`, components),
                  ...(spec.bodyExample !== undefined ? { example: spec.bodyExample } : {}),
                },
              },
            },
          }
        : {}),
      responses,
      security: securityOf(spec),
    };
    const item = (paths[path] ??= {});
    if (item[spec.method.toLowerCase()]) throw new Error(`${spec.method} ${spec.path} is declared twice`);
    item[spec.method.toLowerCase()] = operation;
  }
  const securitySchemes: Record<string, JsonSchema> = {
    bearer: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'An OAuth 2 access token from the Keycloak realm `mobile-world` (audience mobile-world-api).',
    },
  };
  if (api.guestSessions) {
    securitySchemes['guestSession'] = {
      type: 'apiKey',
      in: 'header',
      name: 'X-Guest-Session',
      description: 'A signed guest session from POST /guest-sessions (carts before login).',
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: api.title, description: api.description, version: api.version },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes,
    },
  };
}
