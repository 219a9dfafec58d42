/** A stand-in for the services in component tests: records each request and answers from a handler. */
export interface Call {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  readonly body: unknown;
}

export interface Answer {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type Handler = (call: Call) => Answer | Promise<Answer>;

export function fakeFetch(handler: Handler): { fetch: typeof fetch; calls: Call[] } {
  const calls: Call[] = [];
  const impl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const text = await req.text();
    const call: Call = {
      method: req.method,
      url: new URL(req.url),
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    calls.push(call);
    const { status, body, headers } = await handler(call);
    return new Response(body === undefined ? null : JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
  };
  return { fetch: impl as typeof fetch, calls };
}

export const CONFIG = {
  api: {
    catalog: 'http://catalog.test',
    inventory: 'http://inventory.test',
    carts: 'http://carts.test',
    orders: 'http://orders.test',
  },
  oidc: { issuer: 'http://idp.test/realms/mobile-world', clientId: 'mobile-world-web' },
} as const;
