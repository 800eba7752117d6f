// How the commands that only read a destination (status, history, schema show) open it: never creating it (a
// mistyped path is an error, not a new empty file), and cheaply (destinations/sqlite/read-only.ts: a current SQLite file is read
// with better-sqlite3 alone; anything else through db/connect.ts, which also brings an older schema up to date).
import { EXIT } from '../lib/exit-codes.js';
import fs from 'node:fs';
import type { Reader } from '../destinations/sqlite/read-only.js';
import { destinationNameOfUrl, fileUrlParts } from '../destinations/url-forms.js';
import type { DestinationName } from '../destinations/contract.js';

/** The destination destinations/sqlite/read-only.ts reads without its adapter (only the migrations' check and better-sqlite3). */
const SQLITE_READ_ONLY: DestinationName = 'sqlite';

/** The file of a file destination's URL (sqlite:, duckdb:; undefined for a server and :memory:). */
export function databaseFile(url: string): string | undefined {
  const m = fileUrlParts(url);
  if (!m || m.rest === ':memory:') return undefined;
  return m.rest;
}

/** Exit code 1 (see README, "Exit codes"): the database named is not there. */
export class MissingDatabaseError extends Error {
  readonly exitCode = EXIT.failed;
}

export async function readDestination<T>(url: string, fn: (r: Reader) => Promise<T>, hint = 'check --database, DATABASE_URL or the pipeline\'s destination'): Promise<T> {
  const file = databaseFile(url);
  if (file !== undefined && !fs.existsSync(file)) {
    const { redactDatabaseUrl } = await import('../db/url.js');
    throw new MissingDatabaseError(`no database at ${redactDatabaseUrl(url)} (the file does not exist; ${hint})`);
  }
  // A current SQLite file is read with better-sqlite3 alone (destinations/sqlite/read-only.ts); anything else is opened in full.
  if (destinationNameOfUrl(url) === SQLITE_READ_ONLY && file !== undefined) {
    const { readSqlite } = await import('../destinations/sqlite/read-only.js');
    const read = await readSqlite(file, fn);
    if (read) return read.value;
  }
  const { openDatabase } = await import('../db/connect.js');
  const { withReadTransaction } = await import('../db/sql.js');
  const db = await openDatabase(url);
  try {
    return await withReadTransaction(db, fn);
  } finally {
    await db.close();
  }
}
