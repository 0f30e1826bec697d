import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXPORT_TABLE } from '@rcs/client';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { columnsOf, SESSION_ITEM_COLUMNS } from '../../src/formats/columns.js';

// The wire contract itself, not the generated types: the column lists must follow openapi.yaml.
const spec = parse(
  readFileSync(fileURLToPath(new URL('../../../../openapi.yaml', import.meta.url)), 'utf8'),
) as { components: { schemas: Record<string, Schema> } };

interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
}

function resolve(schema: Schema): Schema {
  let s = schema;
  while (s.$ref) {
    const name = s.$ref.replace('#/components/schemas/', '');
    const target = spec.components.schemas[name];
    if (!target) throw new Error(`unresolved ${s.$ref}`);
    s = target;
  }
  return s;
}

/** The mapping of EXPORT.md, applied to the schema: objects flatten, arrays and scalars are leaves. */
function leafColumns(schema: Schema, prefix = ''): string[] {
  const s = resolve(schema);
  const out: string[] = [];
  for (const [key, property] of Object.entries(s.properties ?? {})) {
    const p = resolve(property);
    const types = Array.isArray(p.type) ? p.type : [p.type];
    if (types.includes('object') && p.properties) out.push(...leafColumns(p, `${prefix}${key}.`));
    else out.push(`${prefix}${key}`);
  }
  return out;
}

describe('CSV columns', () => {
  for (const entry of EXPORT_TABLE) {
    it(`${entry.resource}: the columns are ${entry.schema}'s properties, in openapi.yaml order`, () => {
      const schema = spec.components.schemas[entry.schema];
      expect(schema, `${entry.schema} in openapi.yaml`).toBeDefined();
      expect([...columnsOf(entry.resource)]).toEqual(leafColumns(schema!));
    });
  }

  it('flattens nested objects with dotted names and keeps arrays as one column', () => {
    expect(columnsOf('real-call-sessions')).toContain('analysis.score');
    expect(columnsOf('real-call-sessions')).toContain('analysis.items');
    expect(columnsOf('real-call-sessions')).not.toContain('analysis');
    expect(columnsOf('users')).toContain('teamIds');
  });

  it('the items child table is keyed by session and holds every RealCallSessionExportItem property', () => {
    const item = spec.components.schemas.RealCallSessionExportItem!;
    expect([...SESSION_ITEM_COLUMNS]).toEqual(['sessionId', 'itemIndex', ...leafColumns(item)]);
  });
});
