import { jwtVerify } from 'jose';
import type { Dataset, OrgData } from './dataset.js';
import { ProblemError } from './problem.js';

/** The schemes a client may use (D2: 401 carries `WWW-Authenticate`). */
const WWW_AUTHENTICATE = 'Bearer realm="rcs", ApiKey header="X-API-KEY"';

/** SHA-256 with Web Crypto, so the mock runs in a browser (MSW worker) as in Node. */
async function digest(s: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(s)));
}

/** Equal-length digests compared without an early exit (what node:crypto's timingSafeEqual does). */
function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  // Stryker disable next-line EqualityOperator: one step past the end reads undefined ^ 0, i.e. 0
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ (b[i] ?? 0);
  return diff === 0;
}

/** Digests of presented API keys kept at most (see `digestOf`). */
const MAX_REMEMBERED_DIGESTS = 64;

function unauthorized(detail: string, bearerError = false): ProblemError {
  return new ProblemError(401, 'unauthorized', detail, undefined, {
    'www-authenticate': bearerError
      ? `Bearer realm="rcs", error="invalid_token", ApiKey header="X-API-KEY"`
      : WWW_AUTHENTICATE,
  });
}

/**
 * D22: API keys from the fixture and HS256 bearer JWTs (`org` claim = organization id, `exp`
 * enforced when present). When both headers are sent each must be valid, for the same
 * organization. Returns the caller's organization (D23 scope) or throws a 401 problem.
 */
export class Authenticator {
  private keys: Promise<{ hash: Uint8Array; org: OrgData }[]> | undefined;
  private readonly apiKeys: { key: string; org: OrgData }[];
  private readonly secret: Uint8Array | undefined;
  private readonly byId: Map<string, OrgData>;
  private readonly presented = new Map<string, Promise<Uint8Array>>();

  constructor(dataset: Dataset) {
    this.apiKeys = dataset.organizations.flatMap((org) => org.apiKeys.map((key) => ({ key, org })));
    this.secret =
      dataset.jwtSecret === undefined ? undefined : new TextEncoder().encode(dataset.jwtSecret);
    this.byId = new Map(dataset.organizations.map((o) => [o.id, o]));
  }

  async authenticate(headers: Headers): Promise<OrgData> {
    const apiKey = headers.get('x-api-key');
    const authorization = headers.get('authorization');
    if (apiKey === null && authorization === null) {
      throw unauthorized('No credentials: send an API key in X-API-KEY or a bearer token.');
    }
    const fromKey = apiKey === null ? undefined : await this.byApiKey(apiKey);
    if (apiKey !== null && !fromKey) throw unauthorized('Unknown API key.');
    const fromToken = authorization === null ? undefined : await this.byBearer(authorization);
    if (fromKey && fromToken && fromKey !== fromToken) {
      throw unauthorized('The API key and the bearer token belong to different organizations.');
    }
    return (fromKey ?? fromToken) as OrgData;
  }

  /** Constant-time: equal-length digests compared with timingSafeEqual, every key visited. */
  private async byApiKey(key: string): Promise<OrgData | undefined> {
    // Hashed once, on first use (Web Crypto is asynchronous).
    this.keys ??= Promise.all(
      this.apiKeys.map(async (k) => ({ hash: await digest(k.key), org: k.org })),
    );
    const [keys, h] = await Promise.all([this.keys, this.digestOf(key)]);
    let found: OrgData | undefined;
    for (const k of keys) if (sameDigest(k.hash, h)) found = k.org;
    return found;
  }

  /**
   * The digest of a presented key, remembered for the next requests with the same key: Web
   * Crypto's digest is an asynchronous job on the thread pool that cost more than a whole small
   * export page, and a client sends the same key on every request. The comparison stays
   * constant-time (digests, every key visited); the map only avoids re-hashing, and is emptied
   * when full, so a caller trying many keys cannot grow it.
   */
  private digestOf(key: string): Promise<Uint8Array> {
    let h = this.presented.get(key);
    // What this cache does is speed and a bounded map, not an answer: without it, or emptied at
    // another size, every key still gets its own digest and the same answer. Its mutants are
    // equivalent for every test of behaviour (no digest calls counted against the cap).
    // Stryker disable next-line ConditionalExpression: re-hashing every time answers the same
    if (!h) {
      // Stryker disable next-line ConditionalExpression,EqualityOperator,CallExpression: the bound
      if (this.presented.size >= MAX_REMEMBERED_DIGESTS) this.presented.clear();
      h = digest(key);
      // Stryker disable next-line CallExpression: not remembering answers the same
      this.presented.set(key, h);
    }
    return h;
  }

  private async byBearer(authorization: string): Promise<OrgData> {
    // Headers has already stripped leading and trailing blanks from the value (Fetch spec).
    const m = /^Bearer[ \t]+(\S+)$/i.exec(authorization);
    if (!m?.[1]) throw unauthorized('The Authorization header must be "Bearer <JWT>".', true);
    if (!this.secret)
      throw unauthorized('Bearer tokens are not accepted by this mock (no jwtSecret).', true);
    let org: unknown;
    try {
      // Only HS256: `none` and every other alg fail here (D22).
      const { payload } = await jwtVerify(m[1], this.secret, { algorithms: ['HS256'] });
      org = payload.org;
    } catch (err) {
      throw unauthorized(`Invalid bearer token: ${(err as Error).message}`, true);
    }
    // Ids are strings: a claim of any other type finds nothing.
    const found = this.byId.get(org as string);
    if (!found)
      throw unauthorized('The bearer token names no known organization (claim "org").', true);
    return found;
  }
}
