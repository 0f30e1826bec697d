import {
  CREATE_REQUEST_FIELDS,
  codePointLength,
  EMAIL_PATTERN,
  repDesignatorProblem,
  TRANSCRIPT_MAX_LENGTH,
  TRANSCRIPT_MIN_LENGTH,
} from '@rcs/transcript';
import { z } from 'zod';
import { clipEcho, type FieldError, validationFailed } from './problem.js';

/** A patterned field of the rule book (@rcs/transcript's CREATE_REQUEST_FIELDS), as zod. */
const patterned = (field: 'userId' | 'missionId' | 'scorecardId') => {
  const rule = CREATE_REQUEST_FIELDS[field];
  return z.string().regex(rule.pattern, `must be ${rule.describes}`).optional();
};

/** D17: the mock counts code points, as JSON Schema does. */
const transcript = z.string().superRefine((s, ctx) => {
  const n = codePointLength(s);
  if (n < TRANSCRIPT_MIN_LENGTH) {
    const message = `must be at least ${TRANSCRIPT_MIN_LENGTH} characters (has ${n})`;
    ctx.addIssue({ code: 'custom', message });
  }
  if (n > TRANSCRIPT_MAX_LENGTH) {
    const message = `must be at most ${TRANSCRIPT_MAX_LENGTH} characters (has ${n})`;
    ctx.addIssue({ code: 'custom', message });
  }
});

/**
 * The body of `createRealCallSession`: unknown fields are refused (D2), exactly one of userId /
 * email (R1, D5). Its output is the generated CreateRealCallSessionRequest, in both directions
 * (expectTypeOf in test/unit/request-schemas.test.ts): a change of openapi.yaml that is not made
 * here fails the type check.
 */
const createRealCallSessionBody = z
  .strictObject({
    transcript,
    meetingName: z
      .string()
      .min(CREATE_REQUEST_FIELDS.meetingName.minLength, 'must be at least 1 character'),
    userId: patterned('userId'),
    email: z.string().regex(EMAIL_PATTERN, 'must match the e-mail pattern').optional(),
    missionId: patterned('missionId'),
    scorecardId: patterned('scorecardId'),
  })
  .superRefine((b, ctx) => {
    const problem = repDesignatorProblem(b.userId !== undefined, b.email !== undefined);
    if (problem) ctx.addIssue({ code: 'custom', path: [], message: problem });
  });

/** zod issues as D1's `errors`, with JSON Pointer paths (`/email`). */
function fieldErrors(error: z.ZodError): FieldError[] {
  const out: FieldError[] = [];
  for (const i of error.issues) {
    const base = i.path.map((p) => `/${String(p)}`).join('');
    if (i.code === 'unrecognized_keys') {
      for (const k of i.keys) out.push({ path: `${base}/${k}`, message: 'unknown field' });
    } else {
      // zod prefixes its own type messages ("Invalid input: expected string, …"); ours have none.
      out.push({ path: base, message: i.message.replace(/^Invalid input: /, '') });
    }
  }
  return out;
}

/** The body, as zod's output type (the contract's type: see above). */
export function parseCreateBody(json: unknown) {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw validationFailed([{ path: '', message: 'the body must be a JSON object' }]);
  }
  const r = createRealCallSessionBody.safeParse(json);
  if (!r.success) throw validationFailed(fieldErrors(r.error));
  return r.data;
}

/** The exports' query after defaults: the contract's (expectTypeOf in the unit test). */
export interface PageQuery {
  page: number;
  limit: number;
}

/** D7: page >= 1 and 1 <= limit <= 100, integers written in decimal; defaults 1 and 20. */
export function parsePageQuery(params: URLSearchParams): PageQuery {
  const errors: FieldError[] = [];
  const int = (name: string, def: number, min: number, max: number): number => {
    const all = params.getAll(name);
    if (all.length === 0) return def;
    const raw = all[0] as string;
    if (all.length > 1) {
      errors.push({ path: `/query/${name}`, message: 'must be given once' });
      return def;
    }
    if (!/^\d{1,15}$/.test(raw)) {
      errors.push({ path: `/query/${name}`, message: `must be an integer (got ${clipEcho(raw)})` });
      return def;
    }
    const n = Number(raw);
    if (n < min || n > max) {
      errors.push({
        path: `/query/${name}`,
        message:
          max === Number.MAX_SAFE_INTEGER ? `must be at least ${min}` : `must be ${min} to ${max}`,
      });
    }
    return n;
  };
  const page = int('page', 1, 1, Number.MAX_SAFE_INTEGER);
  const limit = int('limit', 20, 1, 100);
  if (errors.length > 0) throw validationFailed(errors);
  return { page, limit };
}

/** D8: the tracks export's `archived` filter: include (default) or only. */
export function parseArchived(params: URLSearchParams): 'include' | 'only' {
  const all = params.getAll('archived');
  if (all.length === 0) return 'include';
  const v = all[0];
  if (all.length > 1 || (v !== 'include' && v !== 'only')) {
    throw validationFailed([
      { path: '/query/archived', message: 'must be "include" or "only", given once' },
    ]);
  }
  return v;
}
