/**
 * The type of one property of an export record, as D27 maps it to Parquet. The shapes of the
 * nine records are generated from openapi.yaml (generated/record-shapes.ts), never guessed from
 * the data.
 */
type ScalarType = 'int64' | 'double' | 'boolean' | 'timestamp' | 'string';

export type FieldShape =
  | { readonly type: ScalarType; readonly nullable: boolean }
  | { readonly type: 'struct'; readonly nullable: boolean; readonly fields: readonly NamedShape[] }
  | { readonly type: 'list'; readonly nullable: boolean; readonly element: FieldShape };

export interface NamedShape {
  readonly name: string;
  readonly shape: FieldShape;
}

/** A record: a struct that is always present. */
export type RecordShape = Extract<FieldShape, { type: 'struct' }>;
