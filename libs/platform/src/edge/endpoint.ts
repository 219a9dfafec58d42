import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  HttpCode,
  RequestMapping,
  RequestMethod,
  SetMetadata,
  Type,
} from '@nestjs/common';
import type { Request } from 'express';
import { z } from 'zod';
import { AppError, type FieldProblem } from '../errors/app-error';
import { validate } from '../http/validate';
import { ANONYMOUS, type Access, type Caller } from './access';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Error statuses an endpoint may document beyond the ones its shape implies. */
export type DocumentedError = 403 | 404 | 409 | 412 | 413 | 422 | 428 | 503;

/**
 * One HTTP operation, declared once (ADR 0007): the same zod schemas validate the request, and
 * build the OpenAPI document served at /docs and committed under docs/api/. Who may call it is
 * part of the declaration, so the guard and the document cannot disagree.
 */
export interface EndpointSpec<
  P extends z.ZodObject | undefined = z.ZodObject | undefined,
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  H extends z.ZodObject | undefined = z.ZodObject | undefined,
> {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Express-style path from the root, e.g. `/carts/:id/items/:product_id`. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly access: Access;
  readonly params?: P;
  readonly query?: Q;
  readonly body?: B;
  /**
   * Request headers the operation reads (lower-case names, e.g. `idempotency-key`, `if-match`),
   * validated like the rest of the input and documented as header parameters. Other headers are
   * not looked at. A required conditional header (`if-match`) that is missing is a 428
   * COMMON.PRECONDITION_REQUIRED rather than a 400: the server requires the write to be conditional.
   */
  readonly headers?: H;
  /** A valid request body, shown in the document. */
  readonly bodyExample?: unknown;
  /** Error code for an unknown body field (e.g. a client-sent price), else COMMON.VALIDATION_FAILED. */
  readonly unknownFieldCode?: (field: string) => string | undefined;
  /** Message for an unknown body field with such a code. */
  readonly unknownFieldMessage?: string;
  readonly response: {
    readonly status: 200 | 201 | 202 | 204;
    readonly description: string;
    readonly schema?: z.ZodType;
    readonly example?: unknown;
    /** `application/json` unless given (Prometheus metrics are text). */
    readonly contentType?: string;
  };
  /** Non-error answers with their own body (readiness: 503 with the failing checks). */
  readonly otherResponses?: Readonly<
    Record<number, { readonly description: string; readonly schema: z.ZodType }>
  >;
  /** Errors this operation answers besides 400/401/403/413/429 (which follow from its shape). */
  readonly errors?: readonly DocumentedError[];
  /**
   * Which token bucket the call takes from (ADR 0007): `writes` per caller (the default of every
   * method but GET), `reads` per caller (paged list reads and other expensive GETs must say so),
   * `guest-sessions` per client address whoever calls (issuing anonymous identities); `none` for
   * a GET unless given.
   */
  readonly rateLimit?: RateLimitClass | 'none';
}

export type RateLimitClass = 'writes' | 'reads' | 'guest-sessions';

/** The bucket an endpoint takes from, if any. */
export function rateLimitOf(spec: Pick<EndpointSpec, 'rateLimit' | 'method'>): RateLimitClass | undefined {
  const declared = spec.rateLimit ?? (spec.method === 'GET' ? 'none' : 'writes');
  return declared === 'none' ? undefined : declared;
}

export const ENDPOINT = Symbol('mw:endpoint');

/** Identity function that keeps the literal types of a spec (so handlers get typed input). */
export function endpoint<
  P extends z.ZodObject | undefined,
  Q extends z.ZodObject | undefined,
  B extends z.ZodType | undefined,
  H extends z.ZodObject | undefined = undefined,
>(spec: EndpointSpec<P, Q, B, H>): EndpointSpec<P, Q, B, H> {
  return spec;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** The validated input of an endpoint's handler. */
export interface InputOf<E> {
  readonly params: E extends EndpointSpec<infer P, z.ZodObject | undefined, z.ZodType | undefined> ? Out<P> : never;
  readonly query: E extends EndpointSpec<z.ZodObject | undefined, infer Q, z.ZodType | undefined> ? Out<Q> : never;
  readonly body: E extends EndpointSpec<z.ZodObject | undefined, z.ZodObject | undefined, infer B> ? Out<B> : never;
  /** The declared headers (see EndpointSpec.headers), validated; `{}` when the spec declares none. */
  readonly headers: E extends EndpointSpec<z.ZodObject | undefined, z.ZodObject | undefined, z.ZodType | undefined, infer H>
    ? H extends z.ZodObject
      ? z.output<H>
      : Record<string, never>
    : never;
}

const METHODS: Readonly<Record<HttpMethod, RequestMethod>> = {
  GET: RequestMethod.GET,
  POST: RequestMethod.POST,
  PUT: RequestMethod.PUT,
  PATCH: RequestMethod.PATCH,
  DELETE: RequestMethod.DELETE,
};

/** Maps a controller method to the spec's method and path, with its success status. */
export function Endpoint(spec: EndpointSpec): MethodDecorator {
  return applyDecorators(
    RequestMapping({ path: spec.path, method: METHODS[spec.method] }),
    HttpCode(spec.response.status),
    SetMetadata(ENDPOINT, spec),
  );
}

export function endpointOf(handler: object): EndpointSpec | undefined {
  return Reflect.getMetadata(ENDPOINT, handler) as EndpointSpec | undefined;
}

/** Every endpoint declared on the given controllers (the document's source), in declaration order. */
export function endpointsOf(controllers: readonly Type<unknown>[]): EndpointSpec[] {
  const out: EndpointSpec[] = [];
  for (const controller of controllers) {
    const proto = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const member = name === 'constructor' ? undefined : proto[name];
      const spec = typeof member === 'function' ? endpointOf(member) : undefined;
      if (spec) out.push(spec);
    }
  }
  return out;
}

/** Validates params, query and body with the endpoint's schemas (unknown body fields named one by one). */
export function validateInput(
  spec: EndpointSpec,
  req: Pick<Request, 'params' | 'query' | 'body'> & { readonly headers?: Readonly<Record<string, string | string[] | undefined>> },
): InputOf<EndpointSpec> {
  const params = spec.params ? validate(spec.params, { ...req.params }, 'params') : undefined;
  const query = spec.query ? validate(spec.query, { ...(req.query as object) }, 'query') : undefined;
  let body: unknown;
  if (spec.body) {
    rejectUnknownBodyFields(spec, req.body);
    body = validate(spec.body, req.body, 'body');
  }
  // After the body: a malformed request is a 400 whatever its preconditions.
  const headers = spec.headers ? validateHeaders(spec.headers, req.headers ?? {}) : {};
  return { params, query, body, headers } as InputOf<EndpointSpec>;
}

/** Conditional request headers: required by an operation, their absence is 428, not 400 (RFC 6585). */
const CONDITIONAL_HEADERS: readonly string[] = ['if-match', 'if-none-match', 'if-unmodified-since'];

/** Only the declared headers are read (a repeated one arrives joined with ", " and fails its pattern). */
function validateHeaders(schema: z.ZodObject, sent: Readonly<Record<string, string | string[] | undefined>>): unknown {
  const declared = Object.entries(schema.shape as Record<string, z.ZodType>);
  const picked: Record<string, unknown> = {};
  for (const [name, field] of declared) {
    const value = sent[name];
    if (value === undefined && CONDITIONAL_HEADERS.includes(name) && !field.safeParse(undefined).success) {
      throw new AppError('COMMON.PRECONDITION_REQUIRED', 'precondition_required', `this write must be conditional: send ${name}`, [
        { field: `headers.${name}`, message: 'required: the version you read (the ETag of the resource)' },
      ]);
    }
    if (value !== undefined) picked[name] = value;
  }
  return validate(schema, picked, 'headers');
}

function rejectUnknownBodyFields(spec: EndpointSpec, value: unknown): void {
  if (
    !(spec.body instanceof z.ZodObject) ||
    value === null ||
    typeof value !== 'object' ||
    Array.isArray(value)
  )
    return;
  const known = spec.body.shape as Record<string, unknown>;
  const unknown = Object.keys(value).filter((k) => !Object.prototype.hasOwnProperty.call(known, k));
  if (unknown.length === 0) return;
  const code = unknown.map((k) => spec.unknownFieldCode?.(k)).find((c) => c !== undefined);
  const problems: FieldProblem[] = unknown.slice(0, 20).map((k) => ({
    field: `body.${k}`,
    message:
      spec.unknownFieldCode?.(k) && spec.unknownFieldMessage ? spec.unknownFieldMessage : 'unknown field',
  }));
  throw AppError.validation(problems, code);
}

/** The validated input of the current request (`@Input() input: InputOf<typeof spec>`). */
export const Input = createParamDecorator((_data: unknown, ctx: ExecutionContext) => {
  const spec = endpointOf(ctx.getHandler());
  if (!spec)
    throw new Error(`@Input() on ${ctx.getClass().name}.${ctx.getHandler().name}, which has no @Endpoint()`);
  return validateInput(spec, ctx.switchToHttp().getRequest<Request>());
});

export const CALLER = Symbol('mw:caller');

/** The verified caller the edge guard attached to the request. */
export const CurrentCaller = createParamDecorator((_data: unknown, ctx: ExecutionContext): Caller => {
  const req = ctx.switchToHttp().getRequest<Request & { [CALLER]?: Caller }>();
  return req[CALLER] ?? ANONYMOUS;
});
