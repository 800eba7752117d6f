// Opens the destination database named by a URL and brings its schema up to date. Both dialects apply the
// committed drizzle-kit migrations (db/migrations/<dialect>) and record them in drizzle's own
// `__drizzle_migrations` table, so `drizzle-kit migrate` and this module agree on what has been applied.
import { redactDatabaseUrl } from './url.js';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { drizzle as drizzleSqlite, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { drizzle as drizzlePg, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import * as sqliteSchema from './schema/sqlite.js';
import * as pgSchema from './schema/pg.js';
import { openDuckDatabase, type DuckDatabase } from '../destinations/duckdb/database.js';

export type Dialect = 'sqlite' | 'postgres' | 'duckdb';

interface DatabaseBase {
  /** The URL it was opened with, password removed (safe to log). */
  url: string;
  close(): Promise<void>;
}
export interface SqliteDatabase extends DatabaseBase {
  dialect: 'sqlite';
  drizzle: BetterSQLite3Database<typeof sqliteSchema>;
  /** The raw driver, for streaming reads (use `stmt.safeIntegers(true)` to read ids beyond 2^53 exactly). */
  sqlite: BetterSqlite3.Database;
  pool?: undefined;
}
export interface PostgresDatabase extends DatabaseBase {
  dialect: 'postgres';
  drizzle: NodePgDatabase<typeof pgSchema>;
  sqlite?: undefined;
  /** The raw pool (int8 columns come back as decimal strings: exact). */
  pool: pg.Pool;
}
export type { DuckDatabase };
export type Database = SqliteDatabase | PostgresDatabase | DuckDatabase;

export const DEFAULT_DATABASE_URL = 'sqlite:./data/scrape-etl.sqlite';

export function defaultDatabaseUrl(): string {
  const fromEnv = process.env['DATABASE_URL'];
  return fromEnv && fromEnv.trim() !== '' ? fromEnv.trim() : DEFAULT_DATABASE_URL;
}

/** The URL with any password replaced, for messages and logs. */
export { redactDatabaseUrl } from './url.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const MIGRATIONS = { sqlite: path.join(here, 'migrations', 'sqlite'), postgres: path.join(here, 'migrations', 'pg') };

// Any constant works; it only has to be the same in every process that migrates this schema.
const PG_MIGRATION_LOCK_KEY = 7_238_451_907;

export type ParsedDatabaseUrl = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string } | { dialect: 'duckdb'; file: string };

/** A malformed URL is a DatabaseConfigError: no retry fixes it, and the command line exits 2 (a usage error). */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  const trimmed = url.trim();
  if (/^duckdb:/i.test(trimmed)) {
    let file = trimmed.slice('duckdb:'.length);
    if (file.startsWith('//')) file = file.slice(2);
    if (file === '') throw new DatabaseConfigError(`database URL '${trimmed}' has no file path (expected duckdb:<path>)`);
    // In memory, each process (and each session) would see a database of its own: nothing a load could share.
    if (file === ':memory:') throw new DatabaseConfigError(`database URL '${trimmed}': a DuckDB destination must be a file (duckdb:<path>)`);
    return { dialect: 'duckdb', file };
  }
  if (/^postgres(ql)?:\/\//i.test(trimmed)) return { dialect: 'postgres', url: trimmed };
  if (/^sqlite:/i.test(trimmed)) {
    let file = trimmed.slice('sqlite:'.length);
    // Accept sqlite:///abs/path and sqlite://rel/path as well as the plain sqlite:<path> form.
    if (file.startsWith('//')) file = file.slice(2);
    if (file === '') throw new DatabaseConfigError(`database URL '${trimmed}' has no file path (expected sqlite:<path>)`);
    return { dialect: 'sqlite', file };
  }
  throw new DatabaseConfigError(
    `unsupported database URL '${redactDatabaseUrl(trimmed)}': expected 'sqlite:<path>', 'duckdb:<path>' or 'postgres://user@host:port/db'`,
  );
}

export interface OpenDatabaseOptions {
  /** Postgres: most connections this Database holds at once. Default SCRAPE_ETL_PG_POOL_SIZE or 10. */
  poolSize?: number;
}

/**
 * Connections per Postgres pool. A worker opens one pool per destination URL and shares it between all its
 * activities (activities/resources.ts); loads queue for a connection rather than open more, so several workers
 * stay within the server's max_connections (workers x pool size). Ten matches node-postgres's default and keeps
 * a worker's 20 concurrent activities busy, since each transaction holds its connection only while it writes.
 */
export const DEFAULT_PG_POOL_SIZE = 10;

export function pgPoolSize(env: NodeJS.ProcessEnv = process.env): number {
  const v = env['SCRAPE_ETL_PG_POOL_SIZE']?.trim();
  if (!v) return DEFAULT_PG_POOL_SIZE;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1000) {
    throw new Error(`SCRAPE_ETL_PG_POOL_SIZE='${v}' must be an integer from 1 to 1000 (connections per Postgres pool)`);
  }
  return n;
}

/**
 * A destination that no retry can open: not a database, no permission, a wrong password, a database that does not
 * exist. Its message names the destination (password redacted) and the fix; callers fail at once instead of
 * retrying (a network error or a busy server is not one of these).
 */
export class DatabaseConfigError extends Error {
  override readonly name = 'DatabaseConfigError';
}

const PERMANENT_SQLITE_CODES = new Set(['SQLITE_NOTADB', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_CORRUPT', 'SQLITE_PERM', 'SQLITE_AUTH']);
const PERMANENT_FS_CODES = new Set(['EACCES', 'EPERM', 'ENOTDIR', 'EROFS', 'EISDIR', 'ENAMETOOLONG', 'EINVAL']);

/** A file-system answer that the same operation would get again (permissions, a file where a folder must be, ...). */
export function isPermanentFsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && PERMANENT_FS_CODES.has(code);
}
// 28000/28P01: authentication; 3D000: no such database; 42501: insufficient privilege; 3F000: no such schema.
const PERMANENT_PG_CODES = new Set(['28000', '28P01', '3D000', '42501', '3F000']);

// DuckDB's errors carry no code: a file that is not a DuckDB database, or one this user may not open.
const PERMANENT_DUCKDB_MESSAGES = /not a valid DuckDB database file|Permission denied|Read-only file system/i;

function isPermanentOpenError(err: unknown): boolean {
  if (err instanceof Error && !('code' in err) && PERMANENT_DUCKDB_MESSAGES.test(err.message)) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return PERMANENT_SQLITE_CODES.has(code) || isPermanentFsError(err) || PERMANENT_PG_CODES.has(code);
}

export async function openDatabase(url: string, opts: OpenDatabaseOptions = {}): Promise<Database> {
  const parsed = parseDatabaseUrl(url);
  try {
    if (parsed.dialect === 'duckdb') return await openDuckDatabase(parsed.file, url);
    return parsed.dialect === 'sqlite' ? openSqlite(parsed.file, url) : await openPostgres(parsed.url, opts.poolSize ?? pgPoolSize());
  } catch (err) {
    if (err instanceof Error && isPermanentOpenError(err.cause ?? err)) throw new DatabaseConfigError(err.message, { cause: err.cause ?? err });
    throw err;
  }
}

function openSqlite(file: string, url: string): SqliteDatabase {
  if (file !== ':memory:') {
    try {
      fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    } catch (err) {
      throw new Error(`cannot create the folder of SQLite database '${file}': ${(err as Error).message}`, { cause: err });
    }
  }
  let sqlite: BetterSqlite3.Database;
  try {
    sqlite = new BetterSqlite3(file);
  } catch (err) {
    throw new Error(`cannot open SQLite database '${file}': ${(err as Error).message}`, { cause: err });
  }
  try {
    // busy_timeout first: switching to WAL and migrating both take locks another process may hold.
    sqlite.pragma('busy_timeout = 15000');
    if (file !== ':memory:') sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    migrateSqlite(sqlite);
  } catch (err) {
    sqlite.close();
    throw new Error(`cannot prepare SQLite database '${file}': ${(err as Error).message}`, { cause: err });
  }
  const db = drizzleSqlite({ client: sqlite, schema: sqliteSchema });
  return {
    dialect: 'sqlite',
    url: url.trim(),
    drizzle: db,
    sqlite,
    close: async () => {
      if (sqlite.open) sqlite.close();
    },
  };
}

/**
 * drizzle's own SQLite migrator reads the applied list before it opens its (deferred) transaction, so two
 * processes starting together could both apply the same migration. Here the check and the apply happen inside
 * one BEGIN IMMEDIATE, which holds the write lock; the second process waits (busy_timeout) and then sees the
 * migrations already recorded.
 */
function migrateSqlite(sqlite: BetterSqlite3.Database): void {
  const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS.sqlite });
  sqlite.exec('BEGIN IMMEDIATE');
  try {
    sqlite.exec(
      'CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)',
    );
    const last = sqlite.prepare('SELECT created_at FROM "__drizzle_migrations" ORDER BY created_at DESC LIMIT 1').get() as
      | { created_at: number | string }
      | undefined;
    const lastMillis = last ? Number(last.created_at) : -Infinity;
    const record = sqlite.prepare('INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES (?, ?)');
    for (const m of migrations) {
      if (m.folderMillis <= lastMillis) continue;
      for (const stmt of m.sql) if (stmt.trim() !== '') sqlite.exec(stmt);
      record.run(m.hash, m.folderMillis);
    }
    sqlite.exec('COMMIT');
  } catch (err) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    throw err;
  }
}

async function openPostgres(url: string, poolSize: number): Promise<PostgresDatabase> {
  const safeUrl = redactDatabaseUrl(url);
  if (!Number.isInteger(poolSize) || poolSize < 1) throw new Error(`Postgres pool size must be a positive integer, got ${poolSize}`);
  // application_name makes a worker's connections recognisable in pg_stat_activity.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, application_name: 'scrape-etl' });
  // An idle client losing its connection must not crash the process; the next query reports the failure.
  pool.on('error', () => {});
  // Nor one the pool has handed out: pg-pool listens for errors only on idle clients, and a server restart cuts
  // checked-out connections too (a load between two statements), which then emit 'error' with no listener: an
  // uncaught exception that ended the worker process. Their queries still fail; the pool drops them on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    const client = await pool.connect();
    try {
      // Serialise concurrent migrators (several workers starting at once) on a session-level advisory lock.
      await client.query('SELECT pg_advisory_lock($1)', [PG_MIGRATION_LOCK_KEY]);
      try {
        await migratePg(drizzlePg({ client }), { migrationsFolder: MIGRATIONS.postgres });
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [PG_MIGRATION_LOCK_KEY]);
      }
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => {});
    throw new Error(`cannot prepare Postgres database ${safeUrl}: ${(err as Error).message}`, { cause: err });
  }
  let closed = false;
  return {
    dialect: 'postgres',
    url: safeUrl,
    drizzle: drizzlePg({ client: pool, schema: pgSchema }),
    pool,
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

export interface ProbeDatabaseOptions {
  /** Postgres: how long to wait for a connection and for `SELECT 1` (default 5 s). */
  timeoutMs?: number;
}

/**
 * Checks, without creating or migrating anything, that `openDatabase(url)` can work: a command calls it before a
 * workflow starts so that a destination no retry can fix is reported in seconds, as a problem of the pipeline file.
 * SQLite: an existing file must be an SQLite database (opened read-only) that can be written; a missing file
 * needs a folder that can be created (its nearest existing ancestor is a writable folder). Postgres: connects
 * with a short timeout and runs `SELECT 1`. Throws an Error whose message says what is wrong (password redacted).
 */
export async function probeDatabase(url: string, opts: ProbeDatabaseOptions = {}): Promise<void> {
  const parsed = parseDatabaseUrl(url);
  if (parsed.dialect === 'sqlite') probeSqlite(parsed.file);
  else if (parsed.dialect === 'duckdb') probeDuckdb(parsed.file);
  else await probePostgres(parsed.url, opts.timeoutMs ?? 5000);
}

/**
 * The database file at `full` when it exists (a file, not a folder); undefined, after checking that it can be
 * created, when it does not.
 */
function existingDatabaseFile(full: string, scheme: 'sqlite' | 'duckdb'): fs.Stats | undefined {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(full);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOTDIR: some ancestor is a file; found and named by probeCreatableFolder's walk.
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new Error(`cannot read ${full}: ${(err as Error).message}`, { cause: err });
  }
  if (stat === undefined) {
    probeCreatableFolder(full);
    return undefined;
  }
  if (stat.isDirectory()) throw new Error(`${full} is a folder, not a database file (expected ${scheme}:<path to a file>)`);
  return stat;
}

function probeSqlite(file: string): void {
  if (file === ':memory:') return;
  const full = path.resolve(file);
  if (!existingDatabaseFile(full, 'sqlite')) return;
  let sqlite: BetterSqlite3.Database | undefined;
  try {
    sqlite = new BetterSqlite3(full, { readonly: true, fileMustExist: true });
    // Opening reads nothing; the first query reads the header, which is where "file is not a database" shows.
    sqlite.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      throw new Error(`${full} is not an SQLite database (${(err as Error).message}); point destination.database at an SQLite database file, or at a path that does not exist yet`, { cause: err });
    }
    throw new Error(`cannot open SQLite database ${full}: ${(err as Error).message}`, { cause: err });
  } finally {
    sqlite?.close();
  }
  // A load writes the file and creates its -wal and -shm files beside it.
  for (const [target, what] of [[full, 'the database file'], [path.dirname(full), 'its folder (SQLite writes a -wal file there)']] as const) {
    try {
      fs.accessSync(target, fs.constants.W_OK);
    } catch {
      throw new Error(`${what} ${target} is not writable by this user`);
    }
  }
}

/**
 * DuckDB: an existing path must be a writable file (it is not opened here: a worker may hold it, and DuckDB would
 * refuse a second process); a missing one needs a creatable folder. The lock file is written beside it.
 */
function probeDuckdb(file: string): void {
  const full = path.resolve(file);
  const stat = existingDatabaseFile(full, 'duckdb');
  if (!stat) return;
  // A DuckDB file carries the magic bytes DUCK at offset 8 (an empty file is one DuckDB will initialise).
  if (stat.size > 0) {
    const head = Buffer.alloc(12);
    const fd = fs.openSync(full, 'r');
    try {
      fs.readSync(fd, head, 0, 12, 0);
    } finally {
      fs.closeSync(fd);
    }
    if (head.subarray(8, 12).toString('latin1') !== 'DUCK') {
      throw new Error(`${full} is not a DuckDB database; point destination.database at a DuckDB file, or at a path that does not exist yet`);
    }
  }
  for (const [target, what] of [[full, 'the database file'], [path.dirname(full), 'its folder (scrape-etl writes a .lock file there)']] as const) {
    try {
      fs.accessSync(target, fs.constants.W_OK);
    } catch {
      throw new Error(`${what} ${target} is not writable by this user`);
    }
  }
}

/** The folder of a database file that does not exist yet must be creatable: its nearest existing ancestor is a writable folder. */
function probeCreatableFolder(file: string): void {
  let dir = path.dirname(file);
  for (;;) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new Error(`cannot read ${dir}: ${(err as Error).message}`, { cause: err });
    }
    if (stat !== undefined) {
      if (!stat.isDirectory()) throw new Error(`cannot create the database ${file}: ${dir} is not a folder`);
      try {
        fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
      } catch {
        throw new Error(`cannot create the database ${file}: folder ${dir} is not writable by this user`);
      }
      return;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot create the database ${file}: no existing folder above it`);
    dir = parent;
  }
}

/** host:port of a Postgres URL for messages (the defaults libpq would use when they are left out). */
function postgresEndpoint(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || u.searchParams.get('host') || 'localhost';
    return `${host}:${u.port || '5432'}`;
  } catch {
    return redactDatabaseUrl(url);
  }
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET']);

async function probePostgres(url: string, timeoutMs: number): Promise<void> {
  const endpoint = postgresEndpoint(url);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs, application_name: 'scrape-etl-probe' });
  // A connection dropped after the probe must not crash the process; the probe's own awaits report failures.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    const e = err as Error & { code?: unknown };
    const code = typeof e.code === 'string' ? e.code : undefined;
    // pg's own messages name the role or database ("password authentication failed for user …", "database … does
    // not exist") and never the password; network errors say little, so say where we tried.
    if ((code !== undefined && UNREACHABLE_CODES.has(code)) || /timeout|timed out|terminated unexpectedly/i.test(e.message)) {
      throw new Error(`cannot reach Postgres at ${endpoint} (${code ?? e.message}); is the server running and the host and port right?`, { cause: err });
    }
    throw new Error(`Postgres at ${endpoint}: ${e.message}`, { cause: err });
  } finally {
    await client.end().catch(() => {});
  }
}
