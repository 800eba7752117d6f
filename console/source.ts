// A destination database opened for reading only, whatever its dialect. The console and the report never write:
// each dialect is opened so that the database itself refuses a write, not only this code's good behaviour. The
// openers are the adapters' (destinations/<name>/read-only-source.ts):
//   SQLite:   better-sqlite3 `readonly: true` (the file is opened O_RDONLY) and `PRAGMA query_only = ON`.
//   Postgres: every session starts with `default_transaction_read_only = on` (a startup option of the pool), so
//             even a statement sent by mistake fails with "cannot execute ... in a read-only transaction".
//   DuckDB:   `access_mode: READ_ONLY`. DuckDB lets one process hold a file open for writing, so a read session
//             takes the project's cross-process file lock (destinations/duckdb/file-lock.ts) like a worker's load does,
//             opens, reads and closes: a worker waiting for the file gets it after the page is read.
// Nothing here migrates, creates a folder or a file (unlike destinations/open.ts's openDatabase, which prepares a
// destination for loading).
import { parseDatabaseUrl } from '../destinations/open.js';

export { mustExist, SourceError } from '../destinations/read-only-errors.js';
import { destinationOf } from '../destinations/index.js';

export type { ReadOnlySource, Reader, Row } from '../destinations/contract.js';
import type { ReadOnlySource } from '../destinations/contract.js';

export async function openReadOnly(url: string): Promise<ReadOnlySource> {
  const parsed = parseDatabaseUrl(url);
  return destinationOf(parsed).openReadOnly(parsed as never, url);
}
