// How the commands that only read a destination (status, history, schema show) open it: never creating it (a
// mistyped path is an error, not a new empty file), and cheaply where its adapter can (readCurrent: a current SQLite
// file is read with better-sqlite3 alone); anything else through destinations/open.ts, which also brings an older
// schema up to date.
import { EXIT } from '../lib/exit-codes.js';
import fs from 'node:fs';
import { fileUrlParts } from '../destinations/url-forms.js';
import type { ExportHandle, QueryReader as Reader } from '../destinations/contract.js';

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

export async function readDestination<T>(
  url: string,
  fn: (r: Reader) => Promise<T>,
  hint = "check --database, DATABASE_URL or the pipeline's destination",
): Promise<T> {
  const file = databaseFile(url);
  if (file !== undefined && !fs.existsSync(file)) {
    const { redactDatabaseUrl } = await import('../db/model/url.js');
    throw new MissingDatabaseError(`no database at ${redactDatabaseUrl(url)} (the file does not exist; ${hint})`);
  }
  // A current database its adapter can read cheaply is read so (an SQLite file: better-sqlite3 alone); anything else
  // is opened in full.
  if (file !== undefined) {
    const { destinationOfUrl } = await import('../destinations/index.js');
    const found = destinationOfUrl(url);
    const read = found ? await found.adapter.readCurrent?.(found.parsed as never, fn) : undefined;
    if (read) return read.value;
  }
  const { openDatabase } = await import('../destinations/open.js');
  const { withReadTransaction } = await import('../db/store/sql.js');
  const db = await openDatabase(url);
  try {
    return await withReadTransaction(db, fn);
  } finally {
    await db.close();
  }
}

/**
 * How `scrape-etl export --out` opens the destination (the file exists: the caller checked): with its driver alone
 * where its adapter can (openCurrentForExport: a current SQLite file), so the command loads neither the query builder
 * nor the migrator before its first row; anything else through destinations/open.ts. bench/_export-child.mjs opens
 * through here too, so the export benchmarks measure what the command does.
 */
export async function openForExport(url: string): Promise<ExportHandle> {
  if (databaseFile(url) !== undefined) {
    const { destinationOfUrl } = await import('../destinations/index.js');
    const found = destinationOfUrl(url);
    const handle = found ? await found.adapter.openCurrentForExport?.(found.parsed as never) : undefined;
    if (handle) return handle;
  }
  const { openDatabase } = await import('../destinations/open.js');
  return openDatabase(url);
}
