// Describes tables in one comparable form, whatever they come from: the plain-data definition, a drizzle table of
// either dialect, or a database the migrations built (SQLite pragmas, Postgres catalogs). Comparing two such
// descriptions lists every difference in column names and order, types (through each engine's column types), nullability,
// defaults, identity, primary key, unique constraints and indexes. test/integration/db/db-schema.test.ts uses it to hold the two
// dialects, the migrations and the definition together; it lives here because it is the schema's own contract.
import { is } from 'drizzle-orm';
import { getTableConfig as pgTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { COLUMN_TYPES, type AnyTableDef, type ColumnDef, type ColumnType } from './definition.js';
import type { ColumnTypeNames } from '../../../destinations/contract.js';
import { SQLITE_COMMENTS_TABLE } from './comments-table.js';

export interface ColumnShape {
  name: string;
  /** What the source calls the type ('bigint', 'integer', ...; the neutral name for a definition), for messages. */
  sqlType: string;
  /**
   * The neutral types this column can be, as far as its source can tell. SQLite's `integer` is int64, int32 or
   * bool, and `text` is text, json or timestamp; a definition or Postgres narrows it down. Two columns agree on
   * type when these sets meet.
   */
  types: readonly ColumnType[];
  notNull: boolean;
  /** The default as an SQL literal ('abc' quoted, numbers and true/false bare), or null when there is none. */
  default: string | null;
  /** Generated key: SQLite AUTOINCREMENT, Postgres identity. */
  identity: boolean;
}

export interface IndexShape {
  name: string;
  columns: readonly string[];
  unique: boolean;
  partial: boolean;
}

export interface TableShape {
  name: string;
  /** In column order. */
  columns: readonly ColumnShape[];
  primaryKey: readonly string[];
  /**
   * Unique constraints, by columns only: SQLite names their indexes itself (sqlite_autoindex_…), so names cannot
   * agree across dialects. The model expresses uniqueness as named unique indexes, so this should stay empty.
   */
  uniques: readonly (readonly string[])[];
  /** Sorted by name. */
  indexes: readonly IndexShape[];
}

/** The neutral types whose SQL is `sqlType` on the engine whose column types these are (the inverse of them). */
export function neutralTypes(columnTypes: ColumnTypeNames, sqlType: string): ColumnType[] {
  const t = sqlType.trim().toLowerCase();
  return COLUMN_TYPES.filter((n) => columnTypes[n] === t);
}

/** Renders a literal default the way the comparison spells SQL literals. */
function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return `<expression ${JSON.stringify(value)}>`;
}

/**
 * A default as a database reports it (SQLite `dflt_value`, Postgres `column_default`), in the same spelling.
 * Postgres adds a cast ('abc'::text) and quotes negative numbers ('-1'::integer); SQLite may store a boolean as 1/0.
 */
export function normalizeDatabaseDefault(raw: string | null, types: readonly ColumnType[]): string | null {
  if (raw === null) return null;
  let v = raw.trim();
  while (v.startsWith('(') && v.endsWith(')')) v = v.slice(1, -1).trim();
  v = v.replace(/::[a-z ]+(\[\])?$/i, '');
  const numeric =
    types.length > 0 && types.every((t) => t === 'int64' || t === 'int32' || t === 'double' || t === 'bool');
  const quoted = /^'(.*)'$/s.exec(v);
  if (quoted && numeric) v = quoted[1]!.replace(/''/g, "'");
  if (types.length === 1 && types[0] === 'bool') {
    if (v === '1' || v.toLowerCase() === 'true') return 'true';
    if (v === '0' || v.toLowerCase() === 'false') return 'false';
  }
  return v;
}

const byName = (a: IndexShape, b: IndexShape) => a.name.localeCompare(b.name);

/** The shape a table definition asks for. */
export function definitionShape(name: string, def: AnyTableDef): TableShape {
  const columns = Object.entries(def.columns).map(([col, c]: [string, ColumnDef]) => ({
    name: col,
    sqlType: c.type,
    types: [c.type],
    notNull: c.notNull === true,
    default: c.default === undefined ? null : literal(c.default),
    identity: c.type === 'int64' && c.identity === true,
  }));
  const identityKey = columns.filter((c) => c.identity).map((c) => c.name);
  return {
    name,
    columns,
    primaryKey: def.primaryKey ? [...def.primaryKey] : identityKey,
    uniques: [],
    indexes: (def.indexes ?? [])
      .map((i) => ({ name: i.name, columns: [...i.columns], unique: i.unique, partial: false }))
      .sort(byName),
  };
}

/** Index and constraint columns are drizzle columns, or SQL expressions (shown as such, never matching a name). */
const columnName = (c: unknown): string =>
  typeof c === 'object' && c !== null && typeof (c as { name?: unknown }).name === 'string'
    ? (c as { name: string }).name
    : '<expression>';

/** The shape of a drizzle table of either dialect, read through drizzle's own table config; `columnTypes` its engine's. */
export function drizzleShape(table: SQLiteTable | PgTable, columnTypes: ColumnTypeNames): TableShape {
  if (is(table, SQLiteTable)) {
    const cfg = sqliteTableConfig(table);
    const columns = cfg.columns.map((c) => {
      // Only drizzle knows a SQLite integer column is boolean (mode: 'boolean'); the SQL says integer either way.
      const isBool = c.columnType === 'SQLiteBoolean';
      const types = neutralTypes(columnTypes, c.getSQLType()).filter((t) => (t === 'bool') === isBool);
      const identity = c.primary && (c as { autoIncrement?: unknown }).autoIncrement === true;
      return {
        name: c.name,
        sqlType: c.getSQLType(),
        types,
        notNull: c.notNull,
        default: c.default === undefined ? null : literal(c.default),
        identity,
      };
    });
    return {
      name: cfg.name,
      columns,
      primaryKey:
        cfg.primaryKeys[0]?.columns.map((c) => c.name) ?? cfg.columns.filter((c) => c.primary).map((c) => c.name),
      uniques: [
        ...cfg.uniqueConstraints.map((u) => u.columns.map((c) => c.name)),
        ...cfg.columns.filter((c) => c.isUnique).map((c) => [c.name]),
      ],
      indexes: cfg.indexes
        .map((i) => ({
          name: i.config.name,
          columns: i.config.columns.map(columnName),
          unique: i.config.unique,
          partial: i.config.where !== undefined,
        }))
        .sort(byName),
    };
  }
  const cfg = pgTableConfig(table);
  const columns = cfg.columns.map((c) => ({
    name: c.name,
    sqlType: c.getSQLType(),
    types: neutralTypes(columnTypes, c.getSQLType()),
    notNull: c.notNull,
    default: c.default === undefined ? null : literal(c.default),
    identity: c.generatedIdentity !== undefined,
  }));
  return {
    name: cfg.name,
    columns,
    primaryKey:
      cfg.primaryKeys[0]?.columns.map((c) => c.name) ?? cfg.columns.filter((c) => c.primary).map((c) => c.name),
    uniques: [
      ...cfg.uniqueConstraints.map((u) => u.columns.map((c) => c.name)),
      ...cfg.columns.filter((c) => c.isUnique).map((c) => [c.name]),
    ],
    indexes: cfg.indexes
      .map((i) => ({
        name: i.config.name ?? '<unnamed>',
        columns: i.config.columns.map(columnName),
        unique: i.config.unique,
        partial: i.config.where !== undefined,
      }))
      .sort(byName),
  };
}

/** The part of better-sqlite3's Database this module needs. */
export interface SqliteReader {
  prepare(sql: string): { all(...params: unknown[]): unknown[] };
}

/** Every user table of a SQLite database, read from its pragmas (drizzle's bookkeeping table left out); `columnTypes` SQLite's. */
export function sqliteDatabaseShapes(db: SqliteReader, columnTypes: ColumnTypeNames): TableShape[] {
  // Besides drizzle's bookkeeping, the catalog of comments (comments.ts) is SQLite's pg_description, not a table of the model.
  const tables = db
    .prepare(
      `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT IN ('__drizzle_migrations', '${SQLITE_COMMENTS_TABLE}') ORDER BY name`,
    )
    .all() as { name: string; sql: string }[];
  return tables.map(({ name, sql }) => {
    const info = db
      .prepare('SELECT name, type, "notnull" AS nn, dflt_value, pk FROM pragma_table_info(?) ORDER BY cid')
      .all(name) as {
      name: string;
      type: string;
      nn: number;
      dflt_value: string | null;
      pk: number;
    }[];
    const columns = info.map((c) => {
      const types = neutralTypes(columnTypes, c.type);
      // pragma table_info does not report AUTOINCREMENT; the table's CREATE statement does.
      const quotedName = `[\`"]?${c.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\`"]?`;
      const identity =
        c.pk > 0 && new RegExp(`${quotedName}\\s+integer\\s+primary\\s+key\\s+autoincrement`, 'i').test(sql);
      return {
        name: c.name,
        sqlType: c.type.toLowerCase(),
        types,
        notNull: c.nn === 1,
        default: normalizeDatabaseDefault(c.dflt_value, types),
        identity,
      };
    });
    const indexList = db
      .prepare('SELECT name, "unique" AS uq, origin, partial FROM pragma_index_list(?)')
      .all(name) as {
      name: string;
      uq: number;
      origin: string;
      partial: number;
    }[];
    const indexColumns = (index: string) =>
      (db.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno').all(index) as { name: string | null }[]).map(
        (r) => r.name ?? '<expression>',
      );
    return {
      name,
      columns,
      primaryKey: info
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
      uniques: indexList.filter((i) => i.origin === 'u').map((i) => indexColumns(i.name)),
      indexes: indexList
        .filter((i) => i.origin === 'c')
        .map((i) => ({ name: i.name, columns: indexColumns(i.name), unique: i.uq === 1, partial: i.partial === 1 }))
        .sort(byName),
    };
  });
}

/** The part of node-postgres's Pool or Client this module needs. */
export interface PgReader {
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/** Every table of a Postgres schema, read from information_schema and the catalogs; `columnTypes` Postgres's. */
export async function pgDatabaseShapes(
  db: PgReader,
  columnTypes: ColumnTypeNames,
  schema = 'public',
): Promise<TableShape[]> {
  const cols = await db.query(
    `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable, c.column_default, c.is_identity
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = $1 AND t.table_type = 'BASE TABLE'
      ORDER BY c.table_name, c.ordinal_position`,
    [schema],
  );
  // indkey lists the key columns in index order (0 for an expression); conindid ties an index to the primary-key
  // or unique constraint it implements, which is how those are told apart from plain indexes.
  const idx = await db.query(
    `SELECT t.relname AS table_name, i.relname AS index_name, ix.indisunique AS is_unique, ix.indisprimary AS is_primary,
            ix.indpred IS NOT NULL AS is_partial, con.contype,
            array(SELECT coalesce(a.attname::text, '<expression>')
                    FROM unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                    LEFT JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = k.attnum
                   ORDER BY k.ord)::text[] AS columns
       FROM pg_index ix
       JOIN pg_class i ON i.oid = ix.indexrelid
       JOIN pg_class t ON t.oid = ix.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
       LEFT JOIN pg_constraint con ON con.conindid = ix.indexrelid AND con.conrelid = t.oid
      WHERE n.nspname = $1`,
    [schema],
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
  for (const r of cols.rows) {
    const types = neutralTypes(columnTypes, String(r['data_type']));
    get(String(r['table_name'])).columns.push({
      name: String(r['column_name']),
      sqlType: String(r['data_type']),
      types,
      notNull: r['is_nullable'] === 'NO',
      default: normalizeDatabaseDefault(r['column_default'] === null ? null : String(r['column_default']), types),
      identity: r['is_identity'] === 'YES',
    });
  }
  for (const r of idx.rows) {
    const t = tables.get(String(r['table_name']));
    if (!t) continue; // an index of something other than a base table (none are expected)
    const columns = r['columns'] as string[];
    if (r['is_primary'] === true) t.primaryKey = columns;
    else if (r['contype'] === 'u') t.uniques.push(columns);
    else
      t.indexes.push({
        name: String(r['index_name']),
        columns,
        unique: r['is_unique'] === true,
        partial: r['is_partial'] === true,
      });
  }
  for (const t of tables.values()) t.indexes.sort(byName);
  return [...tables.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Defaults agree when their literals do, or when both columns may be timestamps and both literals name the same
 * instant: Postgres shows '2024-06-01T00:00:00Z' back as '2024-06-01 00:00:00+00'.
 */
function sameDefault(a: ColumnShape, b: ColumnShape): boolean {
  if (a.default === b.default) return true;
  if (a.default === null || b.default === null || !a.types.includes('timestamp') || !b.types.includes('timestamp'))
    return false;
  const instant = (v: string) => (/^'.*'$/s.test(v) ? Date.parse(v.slice(1, -1)) : NaN);
  const [x, y] = [instant(a.default), instant(b.default)];
  return !Number.isNaN(x) && x === y;
}

const typeLabel = (c: ColumnShape) =>
  c.types.length === 1 && c.types[0] === c.sqlType
    ? c.sqlType
    : `${c.sqlType} (${c.types.join('|') || 'not among the column types'})`;
const list = (xs: readonly string[]) => `(${xs.join(', ')})`;
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Every difference between two shapes of one table, as readable lines (`table.column: what: left vs right`); empty
 * when they agree. Types agree when the two columns' neutral type sets meet, so SQLite's coarser types still
 * compare against Postgres and the definition.
 */
export function compareTables(a: TableShape, b: TableShape): string[] {
  const out: string[] = [];
  const t = a.name === b.name ? a.name : `${a.name}|${b.name}`;
  if (a.name !== b.name) out.push(`${t}: table name: ${a.name} vs ${b.name}`);
  const aNames = a.columns.map((c) => c.name);
  const bNames = b.columns.map((c) => c.name);
  if (!sameList(aNames, bNames)) out.push(`${t}: columns: ${list(aNames)} vs ${list(bNames)}`);
  for (const ca of a.columns) {
    const cb = b.columns.find((c) => c.name === ca.name);
    if (!cb) continue; // already reported in the column list
    const at = `${t}.${ca.name}`;
    if (!ca.types.some((x) => cb.types.includes(x))) out.push(`${at}: type: ${typeLabel(ca)} vs ${typeLabel(cb)}`);
    if (ca.notNull !== cb.notNull) out.push(`${at}: not null: ${ca.notNull} vs ${cb.notNull}`);
    if (!sameDefault(ca, cb)) out.push(`${at}: default: ${ca.default ?? 'none'} vs ${cb.default ?? 'none'}`);
    if (ca.identity !== cb.identity) out.push(`${at}: identity: ${ca.identity} vs ${cb.identity}`);
  }
  if (!sameList(a.primaryKey, b.primaryKey))
    out.push(`${t}: primary key: ${list(a.primaryKey)} vs ${list(b.primaryKey)}`);
  const uniq = (s: TableShape) => s.uniques.map(list).sort();
  if (!sameList(uniq(a), uniq(b)))
    out.push(`${t}: unique constraints: [${uniq(a).join(', ')}] vs [${uniq(b).join(', ')}]`);
  const idx = (i: IndexShape) =>
    `${i.unique ? 'unique ' : ''}${i.partial ? 'partial ' : ''}${i.name} ${list(i.columns)}`;
  const aIdx = a.indexes.map(idx);
  const bIdx = b.indexes.map(idx);
  for (const i of aIdx) if (!bIdx.includes(i)) out.push(`${t}: index only on the left: ${i}`);
  for (const i of bIdx) if (!aIdx.includes(i)) out.push(`${t}: index only on the right: ${i}`);
  return out;
}

/** compareTables over whole schemas, also reporting tables that only one side has. */
export function compareSchemas(a: readonly TableShape[], b: readonly TableShape[]): string[] {
  const out: string[] = [];
  for (const ta of a) {
    const tb = b.find((x) => x.name === ta.name);
    if (tb) out.push(...compareTables(ta, tb));
    else out.push(`${ta.name}: table only on the left`);
  }
  for (const tb of b) if (!a.some((x) => x.name === tb.name)) out.push(`${tb.name}: table only on the right`);
  return out;
}
