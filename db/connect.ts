// Opens the destination database named by a URL and brings its schema up to date. Which destination a URL names
// and how it is opened, migrated and probed is its adapter's (destinations/<name>/); this module is the entry point
// the rest of the product calls, and holds the database types. SQLite and Postgres apply the committed drizzle-kit
// migrations (db/migrations/<dialect>) and record them in drizzle's own `__drizzle_migrations` table.
import { redactDatabaseUrl } from './url.js';
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type * as sqliteSchema from './schema/sqlite.js';
import type * as pgSchema from './schema/pg.js';
import type { DuckDatabase } from '../destinations/duckdb/database.js';
import { DESTINATION_NAMES, DESTINATIONS, destinationNamed, destinationOfUrl } from '../destinations/index.js';
import type { DestinationName } from '../destinations/types.js';

export type Dialect = DestinationName;

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

/** DATABASE_URL (or the project's `destination`), else the default: one rule, settings/definition.ts's. */
export { defaultDatabaseUrl } from '../settings/process.js';

/** The URL with any password replaced, for messages and logs. */
export { redactDatabaseUrl } from './url.js';

export type ParsedDatabaseUrl = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string } | { dialect: 'duckdb'; file: string };

/** A malformed URL is a DatabaseConfigError: no retry fixes it, and the command line exits 2 (a usage error). */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  const trimmed = url.trim();
  const found = destinationOfUrl(trimmed);
  if (found) return found.parsed as ParsedDatabaseUrl;
  const forms = DESTINATION_NAMES.map((n) => `'${DESTINATIONS[n].urlForm}'`);
  throw new DatabaseConfigError(`unsupported database URL '${redactDatabaseUrl(trimmed)}': expected ${forms.slice(0, -1).join(', ')} or ${forms[forms.length - 1]}`);
}

/** The file a URL names, for a file destination (SQLite, DuckDB); undefined for a server. */
export function databaseFileOf(parsed: ParsedDatabaseUrl): string | undefined {
  return destinationNamed(parsed.dialect).fileOf(parsed as never);
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
export const DEFAULT_PG_POOL_SIZE: number = defaultOf('pgPoolSize');

/** SCRAPE_ETL_PG_POOL_SIZE of these settings (an environment's, a test's; default: this process's). */
export function pgPoolSize(env?: Env): number {
  return settingsFor(env).pgPoolSize;
}

export { DatabaseConfigError } from './config-error.js';
import { DatabaseConfigError } from './config-error.js';
import { defaultOf } from '../settings/definition.js';
import { settingsFor } from '../settings/process.js';
import type { Env } from '../settings/settings.js';

const PERMANENT_SQLITE_CODES = new Set(['SQLITE_NOTADB', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_CORRUPT', 'SQLITE_PERM', 'SQLITE_AUTH']);
const PERMANENT_FS_CODES = new Set(['EACCES', 'EPERM', 'ENOTDIR', 'EROFS', 'EISDIR', 'ENAMETOOLONG', 'EINVAL']);

/** A file-system answer that the same operation would get again (permissions, a file where a folder must be, ...). */
export function isPermanentFsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && PERMANENT_FS_CODES.has(code);
}

function isPermanentOpenError(err: unknown): boolean {
  return isPermanentFsError(err) || DESTINATION_NAMES.some((n) => DESTINATIONS[n].isPermanentOpenError(err));
}

export async function openDatabase(url: string, opts: OpenDatabaseOptions = {}): Promise<Database> {
  const parsed = parseDatabaseUrl(url);
  try {
    return await destinationNamed(parsed.dialect).open(parsed as never, url, opts);
  } catch (err) {
    if (err instanceof Error && isPermanentOpenError(err.cause ?? err)) throw new DatabaseConfigError(err.message, { cause: err.cause ?? err });
    throw err;
  }
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
  await destinationNamed(parsed.dialect).probe(parsed as never, opts);
}
