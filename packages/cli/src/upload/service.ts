import { randomBytes, scryptSync } from 'node:crypto';
import { withoutTrailingSlashes } from '@rcs/client/internal';

/**
 * D28 One upload, one service: the service an upload went to, as the ledger records it. The base
 * URL's origin and path say where; a fingerprint of the credential says as whom (another
 * organization's key is another service as far as uploads go, since all data is scoped to the
 * caller's organization).
 *
 * The fingerprint reveals nothing of the credential: scrypt (N = 2^14, r = 8, p = 1, about 16 MiB
 * and tens of milliseconds per guess) over the credential with a random salt that the ledger
 * keeps, truncated to 128 bits. A ledger file that leaks (committed, shared in a bug report)
 * therefore gives no credential back, and guessing even a short key offline costs a memory-hard
 * hash per guess per salt, with no precomputed table usable across ledgers.
 */

const SCRYPT = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const FINGERPRINT_BYTES = 16;
const SALT_BYTES = 16;
/** `scrypt1.<salt hex>.<hash hex>`: the version names the parameters above. */
const PREFIX = 'scrypt1';
const FINGERPRINT = /^scrypt1\.([0-9a-f]{32})\.([0-9a-f]{32})$/;

/** The credentials a run sends (cli.md: `X-API-KEY` and/or `Authorization: Bearer`). */
export interface Credentials {
  apiKey?: string | undefined;
  token?: string | undefined;
}

export interface ServiceIdentity {
  /** Origin and path of the base URL, e.g. `https://api.example.com` or `http://127.0.0.1:4010`. */
  readonly url: string;
  /** The credential's fingerprint under `salt` (hex), as written in the ledger. */
  fingerprint(salt: string): string;
}

/** `https://API.example.com:443/base/` → `https://api.example.com/base`: one spelling per service. */
function serviceUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${withoutTrailingSlashes(url.pathname)}`;
}

/** A fresh salt for a ledger that has none yet. */
export function newSalt(): string {
  return randomBytes(SALT_BYTES).toString('hex');
}

/** The salt a recorded fingerprint was made with, or undefined when it is not one of ours. */
export function saltOf(fingerprint: unknown): string | undefined {
  return typeof fingerprint === 'string' ? FINGERPRINT.exec(fingerprint)?.[1] : undefined;
}

/**
 * A bearer token is refreshed (a new `exp`, `iat`, `jti`) while it stays the same account: its
 * fingerprint is taken over its claims without those, so a refreshed token keeps its ledger
 * records. A token that is not a readable JWT is taken whole.
 */
const TIME_BOUND_CLAIMS = new Set(['exp', 'iat', 'nbf', 'jti', 'auth_time']);

function tokenIdentity(token: string): string {
  const payload = token.split('.')[1];
  if (payload !== undefined) {
    try {
      const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (claims !== null && typeof claims === 'object' && !Array.isArray(claims)) {
        const kept = Object.entries(claims)
          .filter(([k]) => !TIME_BOUND_CLAIMS.has(k))
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        return `jwt-claims:${JSON.stringify(kept)}`;
      }
    } catch {
      // Not a JWT we can read: the token itself identifies the caller.
    }
  }
  return `token:${token}`;
}

function credentialText(credentials: Credentials): string {
  const parts: string[] = [];
  if (credentials.apiKey) parts.push(`api-key:${credentials.apiKey}`);
  if (credentials.token) parts.push(tokenIdentity(credentials.token));
  return parts.join('\n');
}

export function serviceIdentity(baseUrl: string, credentials: Credentials): ServiceIdentity {
  const url = serviceUrl(baseUrl);
  const text = credentialText(credentials);
  const cache = new Map<string, string>();
  return {
    url,
    fingerprint(salt) {
      let fp = cache.get(salt);
      if (fp === undefined) {
        const hash = scryptSync(text, Buffer.from(salt, 'hex'), FINGERPRINT_BYTES, SCRYPT);
        fp = `${PREFIX}.${salt}.${hash.toString('hex')}`;
        cache.set(salt, fp);
      }
      return fp;
    },
  };
}
