// The tables of a DuckDB file in the comparable form of db/model/schema/parity.ts, so a test can hold the generated
// DuckDB schema (db/duckdb/ddl.ts) against the definition and against a database the Postgres migrations built.
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  neutralTypes,
  normalizeDatabaseDefault,
  type ColumnShape,
  type IndexShape,
  type TableShape,
} from '../../db/model/schema/parity.js';
import { postgresTypeName } from './type-names.js';
import { SCHEMA_VERSION_TABLE } from './ddl.js';
import { DUCKDB_COLUMN_TYPES } from './column-types.js';

/** duckdb_indexes().expressions is text such as `[pipeline, load_id]` (names quoted only when they must be). */
function indexColumns(expressions: string): string[] {
  return expressions
    .replace(/^\[|\]$/g, '')
    .split(',')
    .map((c) =>
      c
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .replace(/""/g, '"'),
    )
    .filter((c) => c !== '');
}

/** Every base table of the file's main schema but the schema-version bookkeeping, read from the catalogs. */
export async function duckdbDatabaseShapes(conn: DuckDBConnection): Promise<TableShape[]> {
  const read = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS();
  const cols = await read(
    `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable, c.column_default
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'main' AND t.table_type = 'BASE TABLE' AND c.table_name <> '${SCHEMA_VERSION_TABLE}'
      ORDER BY c.table_name, c.ordinal_position`,
  );
  const keys = await read(
    `SELECT table_name, constraint_type, constraint_column_names FROM duckdb_constraints() WHERE schema_name = 'main' AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')`,
  );
  const idx = await read(
    `SELECT table_name, index_name, is_unique, expressions FROM duckdb_indexes() WHERE schema_name = 'main'`,
  );
  const tables = new Map<
    string,
    TableShape & { columns: ColumnShape[]; uniques: string[][]; indexes: IndexShape[]; primaryKey: string[] }
  >();
  const get = (name: string) => {
    let t = tables.get(name);
    if (!t) tables.set(name, (t = { name, columns: [], primaryKey: [], uniques: [], indexes: [] }));
    return t;
  };
  for (const r of cols) {
    const sqlType = postgresTypeName(String(r['data_type']));
    const types = neutralTypes(DUCKDB_COLUMN_TYPES, sqlType);
    const rawDefault = r['column_default'] === null ? null : String(r['column_default']);
    // Identity columns are a sequence default here (DuckDB has no GENERATED … AS IDENTITY).
    const identity = rawDefault !== null && /^nextval\(/i.test(rawDefault);
    get(String(r['table_name'])).columns.push({
      name: String(r['column_name']),
      sqlType,
      types,
      notNull: r['is_nullable'] === 'NO',
      default: identity ? null : normalizeDatabaseDefault(rawDefault, types),
      identity,
    });
  }
  for (const r of keys) {
    const t = tables.get(String(r['table_name']));
    if (!t) continue;
    const columns = (r['constraint_column_names'] as string[]).map(String);
    if (r['constraint_type'] === 'PRIMARY KEY') t.primaryKey = columns;
    else t.uniques.push(columns);
  }
  for (const r of idx) {
    const t = tables.get(String(r['table_name']));
    if (!t) continue;
    t.indexes.push({
      name: String(r['index_name']),
      columns: indexColumns(String(r['expressions'])),
      unique: r['is_unique'] === true,
      partial: false,
    });
  }
  for (const t of tables.values()) t.indexes.sort((a, b) => a.name.localeCompare(b.name));
  return [...tables.values()].sort((a, b) => a.name.localeCompare(b.name));
}
