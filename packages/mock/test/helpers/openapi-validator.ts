import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

/**
 * Validates answers against openapi.yaml itself (JSON Schema 2020-12 via ajv + ajv-formats), not
 * against our zod schemas, so the mock and the spec cannot drift. Reusable by any package's
 * tests:
 *
 *   const spec = openApiValidator();
 *   await spec.expectResponse('getRealCallSession', response); // throws with every mismatch
 */

const DEFAULT_SPEC = fileURLToPath(new URL('../../../../openapi.yaml', import.meta.url));
const SPEC_ID = 'openapi.json';

type Json = Record<string, unknown>;

interface Operation {
  method: string;
  path: string;
  responses: Record<string, Json>;
}

export interface OpenApiValidator {
  /** Every operationId of the spec. */
  operationIds: string[];
  /**
   * Checks status, content type and body of `operationId`'s answer, and, when `headers` are
   * given, that every header the spec documents for that answer is present (D2: Retry-After on
   * 429/503, WWW-Authenticate on 401). Returns the problems.
   */
  check(
    operationId: string,
    status: number,
    contentType: string | null,
    body: unknown,
    headers?: Headers,
  ): string[];
  /** Reads the response body and checks it; throws an Error listing every mismatch. */
  expectResponse(operationId: string, response: Response): Promise<unknown>;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const rewriteRefs = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      out[k] =
        k === '$ref' && typeof v === 'string' && v.startsWith('#/')
          ? `${SPEC_ID}${v}`
          : rewriteRefs(v);
    }
    return out;
  }
  return node;
};

const cache = new Map<string, OpenApiValidator>();

export function openApiValidator(specPath: string = DEFAULT_SPEC): OpenApiValidator {
  const cached = cache.get(specPath);
  if (cached) return cached;
  const doc = parse(readFileSync(specPath, 'utf8')) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ ...(doc as object), $id: SPEC_ID });

  const deref = (node: Json): Json => {
    let n = node;
    while (typeof n.$ref === 'string') {
      const parts = n.$ref
        .replace(/^#\//, '')
        .split('/')
        .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
      let cur: unknown = doc;
      for (const p of parts) cur = (cur as Json)[p];
      n = cur as Json;
    }
    return n;
  };

  const ops = new Map<string, Operation>();
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const o = op as Json;
      if (typeof o.operationId === 'string') {
        ops.set(o.operationId, { method, path, responses: o.responses as Record<string, Json> });
      }
    }
  }

  const compiled = new Map<string, ValidateFunction>();
  const check = (
    operationId: string,
    status: number,
    contentType: string | null,
    body: unknown,
    headers?: Headers,
  ): string[] => {
    const op = ops.get(operationId);
    if (!op) return [`unknown operationId ${operationId}`];
    const declared = op.responses[String(status)] ?? op.responses.default;
    if (!declared) {
      return [
        `${operationId}: status ${status} is not documented (documented: ${Object.keys(op.responses).join(', ')})`,
      ];
    }
    const response = deref(declared);
    const missing = Object.keys((response.headers as Json | undefined) ?? {})
      .filter((name) => headers && !headers.has(name))
      .map((name) => `${operationId} ${status}: documented header ${name} is missing`);
    if (missing.length > 0) return missing;
    const content = response.content as Record<string, Json> | undefined;
    if (!content)
      return body === undefined || body === ''
        ? []
        : [`${operationId} ${status}: no body documented`];
    const media = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
    const entry = content[media];
    if (!entry) {
      return [
        `${operationId} ${status}: content type "${contentType}" not documented (${Object.keys(content).join(', ')})`,
      ];
    }
    const key = `${operationId} ${status} ${media}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(rewriteRefs(entry.schema) as object);
      compiled.set(key, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) => `${key}: ${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
    );
  };

  const validator: OpenApiValidator = {
    operationIds: [...ops.keys()],
    check,
    async expectResponse(operationId, response) {
      const text = await response.text();
      let body: unknown = text;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        // Not JSON: checked as a string, and any documented JSON schema will say so.
      }
      const errors = check(
        operationId,
        response.status,
        response.headers.get('content-type'),
        body,
      );
      if (errors.length > 0) {
        throw new Error(
          `answer does not match openapi.yaml:\n  ${errors.join('\n  ')}\nbody: ${text.slice(0, 500)}`,
        );
      }
      return body;
    },
  };
  cache.set(specPath, validator);
  return validator;
}
