// A destination database opened for reading only, whatever its dialect. The console and the report never write:
// each dialect is opened so that the database itself refuses a write, not only this code's good behaviour. The
// openers are the adapters' (destinations/<name>/read-only-source.ts):
//   SQLite:   better-sqlite3 `readonly: true` (the file is opened O_RDONLY) and `PRAGMA query_only = ON`.
//   Postgres: every session starts with `default_transaction_read_only = on` (a startup option of the pool), so
//             even a statement sent by mistake fails with "cannot execute ... in a read-only transaction".
//   DuckDB:   `access_mode: READ_ONLY`. DuckDB lets one process hold a file open for writing, so a read session
//             takes the project's cross-process file lock (destinations/duckdb/file-lock.ts) like a worker's load does,
//             opens, reads and closes: a worker waiting for the file gets it after the page is read.
// Nothing here migrates, creates a folder or a file (unlike db/connect.ts's openDatabase, which prepares a
// destination for loading).
import fs from 'node:fs';
import path from 'node:path';
import { parseDatabaseUrl } from '../db/connect.js';
import { destinationOf } from '../destinations/index.js';

export type { ReadOnlySource, Reader, Row } from '../destinations/contract.js';
import type { ReadOnlySource } from '../destinations/contract.js';

export class SourceError extends Error {
  override readonly name = 'SourceError';
}

export async function openReadOnly(url: string): Promise<ReadOnlySource> {
  const parsed = parseDatabaseUrl(url);
  return destinationOf(parsed).openReadOnly(parsed as never, url);
}

export function mustExist(file: string, scheme: string): string {
  const full = path.resolve(file);
  if (!fs.existsSync(full)) {
    throw new SourceError(`${scheme} database ${full} does not exist; the console reads an existing destination (run a pipeline first, or pass --database ${scheme}:<path of your database file>)`);
  }
  return full;
}
