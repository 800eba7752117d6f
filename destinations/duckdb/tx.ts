// The loader's Tx over one DuckDB connection: `$n` placeholders, statements prepared once per SQL text and
// connection, parameters bound by their JavaScript type, results read as JavaScript values (BIGINT as bigint,
// like SQLite; TIMESTAMPTZ as Date, like node-postgres). A DuckTx also binds typed lists (DuckList), so many rows
// travel in one statement of a fixed shape as `unnest($1::BIGINT[]), unnest($2::VARCHAR[]), …` (the group writer,
// destinations/duckdb/load-group.ts).
import type { DuckDBConnection, DuckDBListType, DuckDBPreparedStatement } from '@duckdb/node-api';
import type { Scalar } from '../../db/model/flatten/values.js';
import type { Param, Tx } from '../../db/store/sql.js';
import { engineErrorKind } from './engine-errors.js';
// The adapter this engine's handles carry (read at run time only, so the import cycle with index.ts is harmless).
import { duckdbDestination } from './index.js';

/** Element types a list parameter is bound as. */
export type DuckListType = 'BIGINT' | 'DOUBLE' | 'BOOLEAN' | 'VARCHAR';

/** A list parameter: `values` bound as a LIST of `type` (each value must be of that type, or null). */
export interface DuckList {
  list: readonly Scalar[];
  type: DuckListType;
}

export type DuckParam = Param | DuckList;

export interface DuckTx extends Tx {
  readonly dialect: 'duckdb';
  /** run and all with list parameters as well as scalars. */
  runWith(sql: string, params: readonly DuckParam[]): Promise<number>;
  allWith(sql: string, params: readonly DuckParam[]): Promise<Array<Record<string, unknown>>>;
}

/** The DuckTx behind a Tx of the duckdb dialect (every one duckTx makes is). */
export function asDuckTx(tx: Tx): DuckTx {
  if (tx.dialect !== 'duckdb' || !('runWith' in tx)) throw new Error('expected a DuckDB transaction');
  return tx as DuckTx;
}

const statements = new WeakMap<DuckDBConnection, Map<string, DuckDBPreparedStatement>>();
const CACHE_LIMIT = 500;

async function prepared(conn: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
  let cache = statements.get(conn);
  if (!cache) statements.set(conn, (cache = new Map()));
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = await conn.prepare(sql);
    if (cache.size >= CACHE_LIMIT) {
      const [oldestSql, oldest] = cache.entries().next().value as [string, DuckDBPreparedStatement];
      cache.delete(oldestSql);
      oldest.destroySync();
    }
    cache.set(sql, stmt);
  }
  return stmt;
}

/**
 * The version of the schema registry that db/store/evolve/registry.ts keeps its reads by (Tx.registryKeeping): a counter
 * per connection. Every load reads schema_history for the tables it writes (a statement's fixed price, a noticeable
 * share of a one-product load), and it changes only through this connection while the file is open: one process holds the
 * file (database.ts), and the connection is dropped when the file is closed. A statement that writes
 * schema_history, any DDL and any rollback move the counter, so nothing read before them is used after.
 */
const registryGenerations = new WeakMap<DuckDBConnection, number>();
/** Statements after which registry reads may be stale: DDL, and any statement but a SELECT that names schema_history. */
const CHANGES_REGISTRY = /^\s*(ALTER|CREATE|DROP)\b/i;
const changesRegistry = (sql: string) =>
  CHANGES_REGISTRY.test(sql) || (sql.includes('schema_history') && !/^\s*SELECT\b/i.test(sql));

const generationOf = (conn: DuckDBConnection) => registryGenerations.get(conn) ?? 0;
function forgetRegistry(conn: DuckDBConnection): void {
  registryGenerations.set(conn, generationOf(conn) + 1);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The list type that carries values of a column of SQL type `sqlType` (the Postgres names the schema uses). */
export function duckListType(sqlType: string): DuckListType {
  const t = sqlType.toLowerCase();
  if (t === 'bigint' || t === 'integer' || t === 'smallint') return 'BIGINT';
  if (t === 'double precision' || t === 'real') return 'DOUBLE';
  if (t === 'boolean') return 'BOOLEAN';
  return 'VARCHAR';
}

/** `unnest($n::T[])::sqlType`: the list parameter n as a column of type `sqlType` (timestamps travel as text). */
export function duckUnnest(tx: Tx, n: number, sqlType: string): string {
  return `unnest(${tx.ph(n)}::${duckListType(sqlType)}[])::${sqlType}`;
}

let listTypes: Record<DuckListType, DuckDBListType> | undefined;

/** The LIST types, from the lazily imported module (SQLite and Postgres users never load it). */
export async function loadListTypes(): Promise<void> {
  if (listTypes) return;
  const { LIST, BIGINT, DOUBLE, BOOLEAN, VARCHAR } = await import('@duckdb/node-api');
  listTypes = { BIGINT: LIST(BIGINT), DOUBLE: LIST(DOUBLE), BOOLEAN: LIST(BOOLEAN), VARCHAR: LIST(VARCHAR) };
}

/** A list element as its list type takes it; anything else throws (the caller's statement then fails whole). */
function element(type: DuckListType, v: Scalar): Scalar {
  if (v === null) return null;
  switch (type) {
    case 'BIGINT':
      if (typeof v === 'bigint' && v >= INT64_MIN && v <= INT64_MAX) return v;
      if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
      break;
    case 'DOUBLE':
      if (typeof v === 'number') return v;
      if (typeof v === 'bigint') return Number(v);
      break;
    case 'BOOLEAN':
      if (typeof v === 'boolean') return v;
      break;
    case 'VARCHAR':
      if (typeof v === 'string') return v;
      break;
  }
  throw new TypeError(`a ${typeof v} (${String(v).slice(0, 40)}) cannot be bound in a ${type} list`);
}

function bindAll(stmt: DuckDBPreparedStatement, params: readonly DuckParam[]): void {
  stmt.clearBindings();
  params.forEach((p, i) => {
    const n = i + 1;
    if (p === null) stmt.bindNull(n);
    else if (typeof p === 'object') {
      if (!listTypes) throw new Error('loadListTypes() must run before a list is bound');
      const type = p.type;
      stmt.bindList(
        n,
        p.list.map((v) => element(type, v)),
        listTypes[type],
      );
    } else if (typeof p === 'string') stmt.bindVarchar(n, p);
    else if (typeof p === 'boolean') stmt.bindBoolean(n, p);
    else if (typeof p === 'bigint') {
      if (p >= INT64_MIN && p <= INT64_MAX) stmt.bindBigInt(n, p);
      else stmt.bindHugeInt(n, p);
    } else if (Number.isSafeInteger(p)) stmt.bindBigInt(n, BigInt(p));
    else stmt.bindDouble(n, p);
  });
}

/** The statements of one connection's transaction. DuckDB has no savepoints, so `savepoint` only runs `fn`. */
export function duckTx(conn: DuckDBConnection): DuckTx {
  const began = generationOf(conn);
  const run = async (sql: string, params: readonly DuckParam[]) => {
    if (changesRegistry(sql)) forgetRegistry(conn);
    const stmt = await prepared(conn, sql);
    bindAll(stmt, params);
    return (await stmt.run()).rowsChanged;
  };
  const all = async (sql: string, params: readonly DuckParam[]) => {
    if (changesRegistry(sql)) forgetRegistry(conn);
    const stmt = await prepared(conn, sql);
    bindAll(stmt, params);
    return (await stmt.runAndReadAll()).getRowObjectsJS() as Array<Record<string, unknown>>;
  };
  return {
    dialect: 'duckdb',
    adapter: duckdbDestination,
    ph: (n) => `$${n}`,
    run,
    all,
    runWith: run,
    allWith: all,
    savepoint: (fn) => fn(),
    // Unchanged since this transaction began: what the registry reads is what was committed (no change of this
    // transaction's own, which a rollback could undo), so a kept read may be used and this one kept.
    registryKeeping: {
      connection: conn,
      registryVersion: async () => (generationOf(conn) === began ? String(began) : undefined),
    },
  };
}

/** Drops the statements prepared on a connection that is about to close. */
export function forgetStatements(conn: DuckDBConnection): void {
  forgetRegistry(conn);
  const cache = statements.get(conn);
  if (!cache) return;
  for (const s of cache.values()) s.destroySync();
  statements.delete(conn);
}

/** Runs `fn` in BEGIN … COMMIT on `conn`; any failure rolls the whole transaction back (no partial batch). */
export async function duckTransaction<T>(conn: DuckDBConnection, fn: (tx: DuckTx) => Promise<T>): Promise<T> {
  await conn.run('BEGIN TRANSACTION');
  try {
    const out = await fn(duckTx(conn));
    await conn.run('COMMIT');
    return out;
  } catch (err) {
    // What the transaction wrote to schema_history is undone with it.
    forgetRegistry(conn);
    // After an engine error the instance is abandoned (database.ts): its rollback is where one was seen to spin.
    if (engineErrorKind(err) === undefined) await conn.run('ROLLBACK').catch(() => {});
    throw err;
  }
}
