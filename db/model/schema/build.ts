// Instantiates the plain-data table definitions (definition.ts) with drizzle's sqlite-core and pg-core builders.
// This is the one place where the dialects differ: one builder per kind of column and dialect, side by side, so
// they can be read against each engine's column types (destinations/<engine>/column-types.ts). The column types are computed from the definition by mapped types (not
// erased to a common base type), so the tables keep the static types hand-written drizzle tables would have.
import type { BuildColumns, ColumnBuilderBase, HasDefault, NotNull } from 'drizzle-orm';
import * as pg from 'drizzle-orm/pg-core';
import * as sqlite from 'drizzle-orm/sqlite-core';
import type { ColumnDef, ColumnsDef, IndexDef, TableDef } from './definition.js';

/** Which builder a column needs: its neutral type, refined by the int64 variants that read or generate differently. */
type BuilderKindName = ColumnDef['type'] | 'int64_number' | 'identity';
type BuilderKind<C extends ColumnDef> = C extends { identity: true }
  ? 'identity'
  : C extends { mode: 'number' }
    ? 'int64_number'
    : C['type'];

function builderKind(c: ColumnDef): BuilderKindName {
  if (c.type === 'int64' && c.identity) return 'identity';
  if (c.type === 'int64' && c.mode === 'number') return 'int64_number';
  return c.type;
}

/**
 * SQLite INTEGER is a signed 64-bit value, so ids beyond 2^53 are stored exactly. Reading them exactly needs
 * better-sqlite3's `safeIntegers(true)` on the statement; values are written as number or bigint.
 */
const sqliteInt64 = sqlite.customType<{ data: number | bigint; driverData: number | bigint }>({
  dataType: () => 'integer',
});

/** bigint (int8): ids beyond 2^53 stay exact; node-postgres returns int8 as a decimal string. */
const pgInt64 = pg.customType<{ data: number | bigint; driverData: string | number | bigint }>({
  dataType: () => 'bigint',
  fromDriver: (value) => BigInt(value),
});

/**
 * json: the bigint-safe serializer's text, kept as written (destinations/postgres/column-types.ts says why json and not jsonb).
 * Written and read as that text: destinations/postgres/open.ts has the driver hand json values back unparsed.
 */
const pgJsonText = pg.customType<{ data: string; driverData: string }>({
  dataType: () => 'json',
  fromDriver: (value) => (typeof value === 'string' ? value : JSON.stringify(value)),
});

const SQLITE_BUILDERS = {
  int64: () => sqliteInt64(),
  int64_number: () => sqlite.integer(),
  identity: () => sqlite.integer().primaryKey({ autoIncrement: true }),
  int32: () => sqlite.integer(),
  double: () => sqlite.real(),
  text: () => sqlite.text(),
  json: () => sqlite.text(),
  bool: () => sqlite.integer({ mode: 'boolean' }),
  // ISO 8601 UTC text: SQLite has no timestamp type, and text sorts and compares correctly.
  timestamp: () => sqlite.text(),
} satisfies Record<BuilderKindName, () => ColumnBuilderBase>;

const PG_BUILDERS = {
  int64: () => pgInt64(),
  int64_number: () => pg.bigint({ mode: 'number' }),
  identity: () => pg.bigint({ mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  int32: () => pg.integer(),
  double: () => pg.doublePrecision(),
  text: () => pg.text(),
  json: () => pgJsonText(),
  bool: () => pg.boolean(),
  // Read as strings, so both dialects hand the loader and exports the same kind of value.
  timestamp: () => pg.timestamp({ withTimezone: true, mode: 'string' }),
} satisfies Record<BuilderKindName, () => ColumnBuilderBase>;

type Builders = typeof SQLITE_BUILDERS | typeof PG_BUILDERS;

/** The drizzle builder type of one column: the base builder, then NOT NULL and DEFAULT as the definition says. */
type Column<B extends Builders, C extends ColumnDef> = C extends { identity: true }
  ? ReturnType<B['identity']> // already carries NOT NULL, the key and its generated default
  : WithDefault<WithNotNull<ReturnType<B[BuilderKind<C>]>, C>, C>;
type WithNotNull<T extends ColumnBuilderBase, C extends ColumnDef> = C extends { notNull: true } ? NotNull<T> : T;
type WithDefault<T extends ColumnBuilderBase, C extends ColumnDef> = C extends { default: unknown } ? HasDefault<T> : T;
type Columns<B extends Builders, C extends ColumnsDef> = { [K in keyof C & string]: Column<B, C[K]> };

/** Re-checks a mapped column type against drizzle's constraint once the definition is known. */
type AsMap<M, B> = M extends Record<string, B> ? M : never;

// What sqliteTable / pgTable would return for hand-written columns of these types. The mapped types are too
// generic for drizzle's own signatures to infer through, so the functions below state their result and cast.
type SqliteTableOf<N extends string, C extends ColumnsDef> = sqlite.SQLiteTableWithColumns<{
  name: N;
  schema: undefined;
  columns: BuildColumns<N, AsMap<Columns<typeof SQLITE_BUILDERS, C>, sqlite.SQLiteColumnBuilderBase>, 'sqlite'>;
  dialect: 'sqlite';
}>;
type PgTableOf<N extends string, C extends ColumnsDef> = pg.PgTableWithColumns<{
  name: N;
  schema: undefined;
  columns: BuildColumns<N, AsMap<Columns<typeof PG_BUILDERS, C>, pg.PgColumnBuilderBase>, 'pg'>;
  dialect: 'pg';
}>;

/** The part of drizzle's column builder API this module calls at run time, the same in both dialects. */
interface ChainableBuilder {
  notNull(): ChainableBuilder;
  default(value: unknown): ChainableBuilder;
}

function instantiateColumns<B extends ColumnBuilderBase>(
  columns: ColumnsDef,
  builders: Record<BuilderKindName, () => B>,
): Record<string, B> {
  return Object.fromEntries(
    Object.entries(columns).map(([name, c]) => {
      let b = builders[builderKind(c)]() as unknown as ChainableBuilder;
      if (c.notNull && !(c.type === 'int64' && c.identity)) b = b.notNull();
      if (c.default !== undefined) b = b.default(c.default);
      return [name, b as unknown as B];
    }),
  );
}

/** Looks up a definition's column names on the table drizzle passes to the extra-config callback. */
function pick<T>(table: Record<string, T>, names: readonly [string, ...string[]]): [T, ...T[]] {
  const cols = names.map((n) => {
    const c = table[n];
    if (c === undefined) throw new Error(`schema definition names column '${n}', which the table does not have`);
    return c;
  });
  return cols as [T, ...T[]];
}

const isUnique = (i: IndexDef) => i.unique;

export function sqliteTableFrom<const N extends string, const C extends ColumnsDef>(
  name: N,
  def: TableDef<C>,
): SqliteTableOf<N, C> {
  const columns = instantiateColumns<sqlite.SQLiteColumnBuilderBase>(def.columns, SQLITE_BUILDERS);
  const table = sqlite.sqliteTable(name, columns, (t) => [
    ...(def.primaryKey ? [sqlite.primaryKey({ columns: pick(t, def.primaryKey) })] : []),
    ...(def.indexes ?? []).map((i) =>
      (isUnique(i) ? sqlite.uniqueIndex(i.name) : sqlite.index(i.name)).on(...pick(t, i.columns)),
    ),
  ]);
  return table as unknown as SqliteTableOf<N, C>;
}

export function pgTableFrom<const N extends string, const C extends ColumnsDef>(
  name: N,
  def: TableDef<C>,
): PgTableOf<N, C> {
  const columns = instantiateColumns<pg.PgColumnBuilderBase>(def.columns, PG_BUILDERS);
  const table = pg.pgTable(name, columns, (t) => [
    ...(def.primaryKey ? [pg.primaryKey({ columns: pick(t, def.primaryKey) })] : []),
    ...(def.indexes ?? []).map((i) =>
      (isUnique(i) ? pg.uniqueIndex(i.name) : pg.index(i.name)).on(...pick(t, i.columns)),
    ),
  ]);
  return table as unknown as PgTableOf<N, C>;
}
