// A lake table's columns (its manifest's schema, export/typed.ts types) as an Iceberg schema, and the evolution of a
// table's schema by a run: a column the table lacks is added with a new field id (in the run's own commit); a column
// whose type differs from the table's is an error naming both. The lake's Parquet files carry no Iceberg field ids,
// so the table's `schema.name-mapping.default` maps file column names to them, as Iceberg's spec provides for files
// written without ids (Hive imports, pyiceberg's add_files).
import type { LakeManifest } from '../lake.js';

export type IcebergType = string | { type: 'list'; 'element-id': number; element: string; 'element-required': boolean };

export interface IcebergField {
  id: number;
  name: string;
  required: boolean;
  type: IcebergType;
}

export interface IcebergSchema {
  type: 'struct';
  'schema-id'?: number;
  fields: IcebergField[];
}

export const NAME_MAPPING_PROPERTY = 'schema.name-mapping.default';

const PRIMITIVE: Record<string, string> = {
  int64: 'long',
  double: 'double',
  bool: 'boolean',
  timestamp_utc: 'timestamptz',
  timestamp_local: 'timestamp',
  json: 'string',
  text: 'string',
  blob: 'binary',
};

const LIST_ELEMENT: Record<string, string> = { int64: 'long', double: 'double', text: 'string' };

type LakeColumn = LakeManifest['schema'][number];

function primitiveOf(column: LakeColumn): string {
  const t = column.list !== undefined ? LIST_ELEMENT[column.list] : PRIMITIVE[column.type];
  if (t === undefined)
    throw new Error(`export: column "${column.name}" has a type (${column.type}) Iceberg has none for`);
  return t;
}

function typeText(t: IcebergType): string {
  return typeof t === 'string' ? t : `list<${t.element}>`;
}

/**
 * The table's schema after this run's columns: the current fields kept (ids and order), new columns appended with
 * ids after `lastColumnId`. `changed` says whether a schema update belongs in the commit.
 */
export function evolveSchema(
  current: IcebergSchema | undefined,
  lastColumnId: number,
  columns: LakeManifest['schema'],
  table: string,
): { fields: IcebergField[]; lastColumnId: number; changed: boolean } {
  const fields = [...(current?.fields ?? [])];
  const byName = new Map(fields.map((f) => [f.name, f]));
  let last = lastColumnId;
  let changed = false;
  for (const column of columns) {
    const element = primitiveOf(column);
    const existing = byName.get(column.name);
    if (existing !== undefined) {
      const want = column.list !== undefined ? `list<${element}>` : element;
      const have = typeText(existing.type);
      if (want !== have)
        throw new Error(
          `export: Iceberg table ${table}: column "${column.name}" is ${have} in the table but this run writes ${want}; ` +
            `Iceberg cannot change it in place: rename the column in the table, or drop and recreate the table`,
        );
      continue;
    }
    const id = ++last;
    const type: IcebergType =
      column.list !== undefined ? { type: 'list', 'element-id': ++last, element, 'element-required': false } : element;
    const field: IcebergField = { id, name: column.name, required: false, type };
    fields.push(field);
    byName.set(column.name, field);
    changed = true;
  }
  return { fields, lastColumnId: last, changed };
}

/** The name mapping of a schema: file columns by name (list elements as `element`) to field ids. */
export function nameMapping(fields: IcebergField[]): string {
  return JSON.stringify(
    fields.map((f) => ({
      'field-id': f.id,
      names: [f.name],
      ...(typeof f.type === 'object' ? { fields: [{ 'field-id': f.type['element-id'], names: ['element'] }] } : {}),
    })),
  );
}
