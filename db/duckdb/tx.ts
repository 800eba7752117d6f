// The loader's Tx over one DuckDB connection: `$n` placeholders, statements prepared once per SQL text and
// connection, parameters bound by their JavaScript type, results read as JavaScript values (BIGINT as bigint,
// like SQLite; TIMESTAMPTZ as Date, like node-postgres).
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import type { Param, Tx } from '../sql.js';

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

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function bindAll(stmt: DuckDBPreparedStatement, params: readonly Param[]): void {
  stmt.clearBindings();
  params.forEach((p, i) => {
    const n = i + 1;
    if (p === null) stmt.bindNull(n);
    else if (typeof p === 'string') stmt.bindVarchar(n, p);
    else if (typeof p === 'boolean') stmt.bindBoolean(n, p);
    else if (typeof p === 'bigint') {
      if (p >= INT64_MIN && p <= INT64_MAX) stmt.bindBigInt(n, p);
      else stmt.bindHugeInt(n, p);
    } else if (Number.isSafeInteger(p)) stmt.bindBigInt(n, BigInt(p));
    else stmt.bindDouble(n, p);
  });
}

/** The statements of one connection's transaction. DuckDB has no savepoints, so `savepoint` only runs `fn`. */
export function duckTx(conn: DuckDBConnection): Tx {
  return {
    dialect: 'duckdb',
    ph: (n) => `$${n}`,
    run: async (sql, params) => {
      const stmt = await prepared(conn, sql);
      bindAll(stmt, params);
      return (await stmt.run()).rowsChanged;
    },
    all: async (sql, params) => {
      const stmt = await prepared(conn, sql);
      bindAll(stmt, params);
      return (await stmt.runAndReadAll()).getRowObjectsJS() as Array<Record<string, unknown>>;
    },
    savepoint: (fn) => fn(),
  };
}

/** Drops the statements prepared on a connection that is about to close. */
export function forgetStatements(conn: DuckDBConnection): void {
  const cache = statements.get(conn);
  if (!cache) return;
  for (const s of cache.values()) s.destroySync();
  statements.delete(conn);
}

/** Runs `fn` in BEGIN … COMMIT on `conn`; any failure rolls the whole transaction back (no partial batch). */
export async function duckTransaction<T>(conn: DuckDBConnection, fn: (tx: Tx) => Promise<T>): Promise<T> {
  await conn.run('BEGIN TRANSACTION');
  try {
    const out = await fn(duckTx(conn));
    await conn.run('COMMIT');
    return out;
  } catch (err) {
    await conn.run('ROLLBACK').catch(() => {});
    throw err;
  }
}
