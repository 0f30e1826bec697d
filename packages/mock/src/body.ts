import { readBounded } from '@rcs/client/internal';
import { ProblemError, validationFailed } from './problem.js';

/** D2: request bodies over 1 MiB are refused with 413 before parsing. */
export const MAX_BODY_BYTES = 1024 * 1024;

export const payloadTooLarge = (): ProblemError =>
  new ProblemError(
    413,
    'payload_too_large',
    `The request body is over ${MAX_BODY_BYTES} bytes (1 MiB).`,
    undefined,
    { connection: 'close' },
  );

/** The raw body, refused with 413 over 1 MiB (declared length first, then while reading). */
export async function readBody(request: Request): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > MAX_BODY_BYTES) throw payloadTooLarge();
  return readLimited(request);
}

export function parseJsonBody(bytes: Uint8Array, type: string | null): unknown {
  const media = type?.split(';')[0]?.trim().toLowerCase();
  if (media !== 'application/json') {
    throw validationFailed(
      [{ path: '', message: `Content-Type must be application/json (got ${type ?? 'none'})` }],
      'The body must be sent as application/json.',
    );
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw validationFailed([
      { path: '', message: `only charset=utf-8 is accepted (got ${charset})` },
    ]);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw validationFailed([{ path: '', message: 'the body is not valid UTF-8' }]);
  }
  if (text.trim() === '') throw validationFailed([{ path: '', message: 'the body is empty' }]);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw validationFailed(
      [{ path: '', message: `malformed JSON: ${(err as Error).message}` }],
      'The body is not valid JSON.',
    );
  }
}

async function readLimited(request: Request): Promise<Uint8Array> {
  const bytes = await readBounded(request.body, MAX_BODY_BYTES);
  if (!bytes) throw payloadTooLarge();
  return bytes;
}
