import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
// @ts-expect-error: a plain .mjs script without types
import { moduleText, shapesOf } from '../../../../scripts/gen-export-shapes.mjs';

const root = new URL('../../../../', import.meta.url);
const spec = () => parse(readFileSync(new URL('openapi.yaml', root), 'utf8'));
const committed = () =>
  readFileSync(new URL('packages/export/src/generated/record-shapes.ts', root), 'utf8');

describe('record shapes (D27 column types) come from openapi.yaml', () => {
  it('generated/record-shapes.ts is fresh (run `npm run gen` if this fails)', () => {
    expect(moduleText(shapesOf(spec()))).toBe(committed());
  });

  it('a changed property type in openapi.yaml changes the shapes', () => {
    const changed = spec();
    changed.components.schemas.TeamExportRecord.properties.name = { type: 'integer' };
    expect(moduleText(shapesOf(changed))).not.toBe(committed());
  });

  it('maps each JSON Schema type as D27 says, nullable where the schema says', () => {
    const shapes = shapesOf(spec());
    const fields = (name: string) =>
      Object.fromEntries(
        shapes[name].fields.map((f: { name: string; shape: unknown }) => [f.name, f.shape]),
      );
    const session = fields('RealCallSessionExportRecord');
    expect(session.createdAt).toEqual({ type: 'timestamp', nullable: false });
    expect(session.transcript).toEqual({ type: 'string', nullable: true });
    // Not in `required`: nullable in Parquet even without 'null' in its type.
    expect(session.participantUserIds).toEqual({
      type: 'list',
      nullable: true,
      element: { type: 'string', nullable: false },
    });
    expect(session.analysis.type).toBe('struct');
    expect(session.analysis.fields[0]).toEqual({
      name: 'score',
      shape: { type: 'double', nullable: false },
    });
    expect(fields('TrackExportRecord').archived).toEqual({ type: 'boolean', nullable: false });
  });

  it('a type with no Parquet mapping is refused by the generator, naming where', () => {
    const bad = spec();
    bad.components.schemas.TeamExportRecord.properties.name = { type: ['string', 'integer'] };
    expect(() => shapesOf(bad)).toThrow(/TeamExportRecord\.name: one type besides null/);
  });
});
