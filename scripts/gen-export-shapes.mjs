// Generates packages/export/src/generated/record-shapes.ts from openapi.yaml: the type of
// every property of the export record schemas, as D27 maps them to Parquet (integers INT64,
// numbers DOUBLE, booleans BOOLEAN, date-times TIMESTAMP, strings UTF8, objects STRUCT, arrays
// LIST), nullable where the schema says so. Run by `npm run gen`; a test checks it is fresh.
//
// Usage: node scripts/gen-export-shapes.mjs [--check]   (--check: exit 1 when the file is stale)
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

const root = new URL('../', import.meta.url);
const target = new URL('packages/export/src/generated/record-shapes.ts', root);

export function shapesOf(spec) {
  const schemas = spec.components.schemas;
  const resolve = (node) => {
    let current = node;
    const seen = new Set();
    while (current.$ref) {
      if (seen.has(current.$ref)) throw new Error(`circular $ref ${current.$ref}`);
      seen.add(current.$ref);
      const name = current.$ref.replace('#/components/schemas/', '');
      const found = schemas[name];
      if (!found) throw new Error(`unresolved $ref ${current.$ref}`);
      // A sibling of $ref (a description) does not change the type.
      current = found;
    }
    return current;
  };
  const shape = (node, where, required) => {
    const schema = resolve(node);
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const nullable = !required || types.includes('null');
    const kinds = types.filter((t) => t !== 'null');
    if (kinds.length !== 1) {
      throw new Error(
        `${where}: one type besides null is needed for a Parquet column, got ${JSON.stringify(schema.type)}`,
      );
    }
    const [kind] = kinds;
    switch (kind) {
      case 'integer':
        return { type: 'int64', nullable };
      case 'number':
        return { type: 'double', nullable };
      case 'boolean':
        return { type: 'boolean', nullable };
      case 'string':
        return { type: schema.format === 'date-time' ? 'timestamp' : 'string', nullable };
      case 'object': {
        const requiredNames = new Set(schema.required ?? []);
        const fields = Object.entries(schema.properties ?? {}).map(([name, child]) => ({
          name,
          shape: shape(child, `${where}.${name}`, requiredNames.has(name)),
        }));
        if (fields.length === 0) throw new Error(`${where}: an object without properties`);
        return { type: 'struct', nullable, fields };
      }
      case 'array':
        // An array element is present when the array is: null only where the items schema says.
        return { type: 'list', nullable, element: shape(schema.items, `${where}[]`, true) };
      default:
        throw new Error(`${where}: type ${kind} has no Parquet mapping in D27`);
    }
  };
  const names = Object.keys(schemas)
    .filter((name) => name.endsWith('ExportRecord') || name.endsWith('ExportItem'))
    .sort();
  return Object.fromEntries(
    names.map((name) => [name, shape({ $ref: `#/components/schemas/${name}` }, name, true)]),
  );
}

export function moduleText(shapes) {
  return `/**
 * Generated from openapi.yaml by scripts/gen-export-shapes.mjs (\`npm run gen\`); do not edit.
 * The type of every property of the export records, as D27 maps them to Parquet.
 */
import type { RecordShape } from '../shape.js';

export const RECORD_SHAPES = ${JSON.stringify(shapes, null, 2)} as const satisfies Record<string, RecordShape>;
`;
}

const isMain = process.argv[1] && new URL(`file://${process.argv[1]}`).href === import.meta.url;
if (isMain) {
  const spec = parse(readFileSync(new URL('openapi.yaml', root), 'utf8'));
  const text = moduleText(shapesOf(spec));
  if (process.argv.includes('--check')) {
    const committed = readFileSync(target, 'utf8');
    if (committed !== text) {
      console.error(`${target.pathname} is stale: run npm run gen`);
      process.exit(1);
    }
  } else {
    writeFileSync(target, text);
  }
}
