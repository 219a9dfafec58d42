import {
  createLocalJWKSet,
  errors as joseErrors,
  type JSONWebKeySet,
  type JWSHeaderParameters,
  type FlattenedJWSInput,
  type KeyLike,
} from 'jose';

/** The signing keys of the identity provider cannot be had: the token may be fine (503, never 401). */
export class KeySetUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeySetUnavailable';
  }
}

export interface JwksCacheOptions {
  /** A key set older than this is refreshed in the background; verification keeps using it meanwhile. */
  readonly refreshMs: number;
  /** The last good key set is used for this long after it was fetched when every refresh fails (issuer down). */
  readonly maxStaleMs: number;
  /** An unknown `kid` refetches the key set at most this often. */
  readonly cooldownMs: number;
  /** One fetch of the key set gives up after this long. */
  readonly timeoutMs: number;
  readonly now?: () => number;
  /** Told about a failed background refresh (the last good set stays in use). */
  readonly onRefreshFailed?: (error: KeySetUnavailable, ageMs: number) => void;
}

type Resolve = ReturnType<typeof createLocalJWKSet>;

/**
 * The issuer's JWKS, fetched by us rather than by jose's remote set (ADR 0007): jose refetches on
 * every verification once its cache is older than `cacheMaxAge`, so an identity provider that is
 * down turns every authenticated call into a 503, and its 5xx or garbage answers become 401s.
 * Here the last good key set is served for `maxStaleMs` and refreshed in the background after
 * `refreshMs`; any failure to fetch keys is a `KeySetUnavailable` (503); a `kid` the set does not
 * hold triggers one refetch per cooldown, so a key rotated at the issuer needs no restart.
 */
export class JwksCache {
  private current: { readonly resolve: Resolve; readonly fetchedAt: number } | undefined;
  private inflight: Promise<void> | undefined;
  private lastAttemptAt = Number.NEGATIVE_INFINITY;
  private lastAttemptFailed: KeySetUnavailable | undefined;
  private readonly now: () => number;

  constructor(
    private readonly url: string,
    private readonly options: JwksCacheOptions,
  ) {
    this.now = options.now ?? (() => Date.now());
  }

  /** The key function jose's `jwtVerify` calls with the token's protected header. */
  readonly getKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<KeyLike> => {
    const now = this.now();
    if (!this.current || now - this.current.fetchedAt > this.options.maxStaleMs) {
      // No usable set: fetch now, but not on every call while the issuer is down (one try per cooldown).
      if (this.lastAttemptFailed && now - this.lastAttemptAt < this.options.cooldownMs)
        throw this.lastAttemptFailed;
      await this.refresh();
    } else if (
      now - this.current.fetchedAt > this.options.refreshMs &&
      now - this.lastAttemptAt >= this.options.cooldownMs
    ) {
      this.refresh().catch((e: unknown) => {
        const fetchedAt = this.current?.fetchedAt ?? now;
        this.options.onRefreshFailed?.(e as KeySetUnavailable, this.now() - fetchedAt);
      });
    }
    const keys = this.current;
    if (!keys) throw this.lastAttemptFailed ?? new KeySetUnavailable('no key set of the identity provider');
    try {
      return await keys.resolve(header, token);
    } catch (e) {
      if (!(e instanceof joseErrors.JWKSNoMatchingKey)) throw e;
      // An unknown kid: perhaps a key rotated at the issuer. Refetch once per cooldown; while the
      // last attempt failed nobody can tell the token is bad, so that is a 503 too.
      if (this.now() - this.lastAttemptAt >= this.options.cooldownMs) await this.refresh();
      else if (this.lastAttemptFailed) throw this.lastAttemptFailed;
      const fresh = this.current;
      if (!fresh) throw e;
      return fresh.resolve(header, token);
    }
  };

  /** One fetch at a time; concurrent callers share it. Rejects with KeySetUnavailable. */
  private refresh(): Promise<void> {
    this.inflight ??= this.fetchKeys().finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  private async fetchKeys(): Promise<void> {
    this.lastAttemptAt = this.now();
    try {
      const jwks = await fetchJwks(this.url, this.options.timeoutMs);
      this.current = { resolve: createLocalJWKSet(jwks), fetchedAt: this.now() };
      this.lastAttemptFailed = undefined;
    } catch (e) {
      const failure =
        e instanceof KeySetUnavailable
          ? e
          : new KeySetUnavailable(`JWKS ${this.url}: ${(e as Error).message}`);
      this.lastAttemptFailed = failure;
      throw failure;
    }
  }
}

/** GET the key set; anything but a 200 with `{"keys": [<at least one JWK object>]}` is a KeySetUnavailable. */
async function fetchJwks(url: string, timeoutMs: number): Promise<JSONWebKeySet> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
    });
  } catch (e) {
    throw new KeySetUnavailable(`JWKS ${url} unreachable: ${(e as Error).message}`);
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    throw new KeySetUnavailable(`JWKS ${url} answered ${response.status}`);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new KeySetUnavailable(`JWKS ${url} answered something that is not JSON`);
  }
  const keys = (body as { keys?: unknown } | null)?.keys;
  if (
    !Array.isArray(keys) ||
    keys.length === 0 ||
    keys.some((k) => k === null || typeof k !== 'object' || Array.isArray(k))
  ) {
    throw new KeySetUnavailable(`JWKS ${url} answered JSON that is not a non-empty key set`);
  }
  return body as JSONWebKeySet;
}
