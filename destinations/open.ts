// Opens the destination database named by a URL and brings its schema up to date. Which destination a URL names
// and how it is opened, migrated and probed is its adapter's (destinations/<name>/); this module is the entry point
// the rest of the product calls, and holds the database types. SQLite and Postgres apply the committed drizzle-kit
// migrations (destinations/<engine>/migrations) and record them in drizzle's own `__drizzle_migrations` table.
import { redactDatabaseUrl } from '../db/model/url.js';
import { DESTINATION_NAMES, DESTINATIONS, destinationNamed, destinationOfUrl } from './index.js';
import type {
  Database,
  DestinationName,
  OpenDatabaseOptions,
  ParsedDatabaseUrl,
  ProbeDatabaseOptions,
} from './contract.js';

export type {
  Database,
  DuckDatabase,
  OpenDatabaseOptions,
  ParsedDatabaseUrl,
  PostgresDatabase,
  ProbeDatabaseOptions,
  SqliteDatabase,
} from './contract.js';

export type Dialect = DestinationName;

/** DATABASE_URL (or the project's `destination`), else the default: one rule, settings/definition.ts's. */
export { defaultDatabaseUrl } from '../settings/process.js';

/** The URL with any password replaced, for messages and logs. */
export { redactDatabaseUrl } from '../db/model/url.js';

/** A malformed URL is a DatabaseConfigError: no retry fixes it, and the command line exits 2 (a usage error). */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  const trimmed = url.trim();
  const found = destinationOfUrl(trimmed);
  if (found) return found.parsed as ParsedDatabaseUrl;
  const forms = DESTINATION_NAMES.map((n) => `'${DESTINATIONS[n].urlForm}'`);
  throw new DatabaseConfigError(
    `unsupported database URL '${redactDatabaseUrl(trimmed)}': expected ${forms.slice(0, -1).join(', ')} or ${forms[forms.length - 1]}`,
  );
}

/** The file a URL names, for a file destination (SQLite, DuckDB); undefined for a server. */
export function databaseFileOf(parsed: ParsedDatabaseUrl): string | undefined {
  return destinationNamed(parsed.dialect).fileOf(parsed as never);
}

/** Connections per Postgres pool: the Postgres engine's (destinations/postgres/pool-size.ts). */
export { DEFAULT_PG_POOL_SIZE, pgPoolSize } from './postgres/pool-size.js';

export { DatabaseConfigError } from './config-error.js';
import { DatabaseConfigError } from './config-error.js';

const PERMANENT_SQLITE_CODES = new Set([
  'SQLITE_NOTADB',
  'SQLITE_CANTOPEN',
  'SQLITE_READONLY',
  'SQLITE_CORRUPT',
  'SQLITE_PERM',
  'SQLITE_AUTH',
]);
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
    if (err instanceof Error && isPermanentOpenError(err.cause ?? err))
      throw new DatabaseConfigError(err.message, { cause: err.cause ?? err });
    throw err;
  }
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
