// SQLite transactions on one better-sqlite3 connection: a statement cache, queued transactions, BEGIN IMMEDIATE
// waiting on the event loop, and savepoints (moved from db/store/sql.ts).
import type BetterSqlite3 from 'better-sqlite3';
import { inSavepoint, type Param, type Tx } from '../../db/store/sql.js';
// The adapter this engine's handles carry (read at run time only, so the import cycle with index.ts is harmless).
import { sqliteDestination } from './index.js';

const sqliteStatements = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();
const sqliteLocks = new WeakMap<BetterSqlite3.Database, Promise<unknown>>();

function sqliteStatement(db: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement {
  let cache = sqliteStatements.get(db);
  if (!cache) sqliteStatements.set(db, (cache = new Map()));
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    if (stmt.reader) stmt.safeIntegers(true);
    cache.set(sql, stmt);
  }
  return stmt;
}

function sqliteParams(params: readonly Param[]): ReadonlyArray<string | number | bigint | null> {
  // better-sqlite3 has no boolean binding; SQLite's own convention is 0/1. Most lists hold none: no copy then.
  if (!params.some((p) => typeof p === 'boolean')) return params as ReadonlyArray<string | number | bigint | null>;
  return params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
}

const schemaVersionOf = (db: BetterSqlite3.Database) =>
  String((sqliteStatement(db, 'PRAGMA schema_version').get() as Record<string, unknown>)['schema_version']);

/**
 * `schemaVersion`: PRAGMA schema_version when the transaction began (read at BEGIN, under its lock). Every DDL
 * statement of any connection changes it, and a rollback restores it: a registry version is only given while it is
 * unchanged, so no read holding this transaction's own (perhaps later rolled back) schema changes is ever kept.
 */
export function sqliteTx(db: BetterSqlite3.Database, schemaVersion?: string): Tx {
  /**
   * Versions read in this transaction, by scope: no other connection writes while it holds the write lock, so a
   * scope's version changes only with this transaction's own registry changes, which move schema_version (DDL) or
   * stop the registry's use of kept states for the rest of the transaction (evolve/registry.ts changedIn).
   */
  const versions = new Map<string, string>();
  return {
    dialect: 'sqlite',
    adapter: sqliteDestination,
    ph: () => '?',
    // One array argument binds the anonymous parameters in order: a multi-row upsert binds thousands of values, which
    // spread into arguments would be copied onto the stack at each call.
    run: async (sql, params) => sqliteStatement(db, sql).run(sqliteParams(params)).changes,
    all: async (sql, params) => sqliteStatement(db, sql).all(sqliteParams(params)) as Array<Record<string, unknown>>,
    savepoint: (fn) => inSavepoint(async (sql) => db.exec(sql), fn),
    ...(schemaVersion === undefined
      ? {}
      : {
          registryKeeping: {
            connection: db,
            registryVersion: async (where, params) => {
              if (schemaVersionOf(db) !== schemaVersion) return undefined;
              const key = `${where}\u0002${params.map(String).join('\u0001')}`;
              const known = versions.get(key);
              if (known !== undefined) return known;
              // One row, computed in SQLite: far cheaper than reading the rows into maps (a marketplace response's
              // ~60 inferred columns were read and mapped for every response). count(source_key) and
              // count(root_table) see the only updates the registry makes (a NULL set); max(rowid) and count(*)
              // see inserts; deletes come with DROP TABLE (rebuild), which moves schema_version.
              const [v] = sqliteStatement(
                db,
                `SELECT (SELECT schema_version FROM pragma_schema_version) AS sv, count(*) AS n, max(rowid) AS m, count(source_key) AS s, count(root_table) AS r FROM schema_history WHERE ${where}`,
              ).all(sqliteParams(params)) as Array<Record<string, unknown>>;
              if (!v || String(v['sv']) !== schemaVersion) return undefined;
              const version = `${String(v['sv'])}:${String(v['n'])}:${String(v['m'])}:${String(v['s'])}:${String(v['r'])}`;
              versions.set(key, version);
              return version;
            },
          },
        }),
  };
}

/**
 * BEGIN IMMEDIATE, waiting for another connection's write lock on the event loop instead of in SQLite's busy
 * handler, which sleeps inside the call: a worker waiting there froze its whole process (its fetches, the
 * parsing and flattening of the next responses, its heartbeats) while the other worker wrote, and in one
 * process two connections deadlocked, the waiting one blocking the thread that would release the lock until
 * SQLITE_BUSY. Each try runs with busy_timeout 0; between tries the event loop runs for a few milliseconds. Gives
 * up with SQLITE_BUSY after the connection's busy_timeout, as the blocking wait did.
 */
export async function beginImmediate(sqlite: BetterSqlite3.Database): Promise<void> {
  const timeoutMs = Number(sqlite.pragma('busy_timeout', { simple: true }));
  const deadline = Date.now() + timeoutMs;
  for (let pauseMs = 1; ; pauseMs = Math.min(pauseMs * 2, 4)) {
    if (timeoutMs > 0) sqlite.pragma('busy_timeout = 0');
    try {
      sqlite.exec('BEGIN IMMEDIATE');
      return;
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw err;
    } finally {
      if (timeoutMs > 0) sqlite.pragma(`busy_timeout = ${timeoutMs}`);
    }
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}

/** `fn` in a transaction begun by `begin`, queued behind this connection's other transactions. */
export function sqliteTransaction<T>(
  sqlite: BetterSqlite3.Database,
  begin: () => Promise<void> | void,
  fn: (tx: Tx) => Promise<T>,
  keepsRegistry = false,
): Promise<T> {
  const previous = sqliteLocks.get(sqlite) ?? Promise.resolve();
  const current = previous
    .catch(() => {})
    .then(async () => {
      await begin();
      try {
        const result = await fn(sqliteTx(sqlite, keepsRegistry ? schemaVersionOf(sqlite) : undefined));
        sqlite.exec('COMMIT');
        return result;
      } catch (err) {
        if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
        throw err;
      }
    });
  sqliteLocks.set(sqlite, current);
  return current;
}

/** Reads in one snapshot: a deferred BEGIN takes no write lock, so other workers' loads go on meanwhile (WAL). */
export function sqliteReadTransaction<T>(sqlite: BetterSqlite3.Database, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return sqliteTransaction(sqlite, () => void sqlite.exec('BEGIN'), fn);
}

/** BEGIN IMMEDIATE (waiting for other connections without blocking the thread), queued behind this connection's transactions. */
export function sqliteWriteTransaction<T>(sqlite: BetterSqlite3.Database, fn: (tx: Tx) => Promise<T>): Promise<T> {
  // The write lock is held from BEGIN: what is read in it is what the file holds until COMMIT (registry reads may be kept).
  return sqliteTransaction(sqlite, () => beginImmediate(sqlite), fn, true);
}
