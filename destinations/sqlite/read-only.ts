// A destination opened only to read it, for the commands that answer from it at once (status, history, schema
// show): a SQLite file opened read-only with better-sqlite3 alone, neither drizzle nor its migrator nor pg loaded,
// and nothing written (no WAL switch, no migration). Only a database whose migrations are all applied is read this
// way; an older one (or another dialect) goes through destinations/open.ts openDatabase, which brings it up to date.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import type { QueryReader } from '../contract.js';
import { waitForLocks } from './connection-settings.js';

/** What the readers need of a transaction: placeholders and queries. */
export type Reader = QueryReader;

const JOURNAL = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations', 'meta', '_journal.json');

/** The time of the newest committed SQLite migration (drizzle records it as created_at). */
function newestMigration(): number {
  const journal = JSON.parse(fs.readFileSync(JOURNAL, 'utf8')) as { entries: Array<{ when: number }> };
  return Math.max(...journal.entries.map((e) => e.when));
}

/**
 * True when every committed migration is applied to the file: it can be read (or have its export watermarks written)
 * without drizzle's migrator. False for an older file, or one that is not a project database.
 */
export function schemaIsCurrent(sqlite: BetterSqlite3.Database): boolean {
  let applied: number;
  try {
    const row = sqlite.prepare('SELECT max(created_at) AS m FROM "__drizzle_migrations"').get() as
      { m: number | string | null } | undefined;
    applied = Number(row?.m ?? -Infinity);
  } catch {
    return false;
  }
  return applied >= newestMigration();
}

/**
 * Runs `fn` on the SQLite file read-only, in one snapshot; undefined (nothing run) when the file's schema is not
 * the current one, so that the caller opens it the ordinary way. The file must exist (the caller checked).
 */
export async function readSqlite<T>(file: string, fn: (r: Reader) => Promise<T>): Promise<{ value: T } | undefined> {
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  const sqlite = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    waitForLocks(sqlite);
    if (!schemaIsCurrent(sqlite)) return undefined;
    const reader: Reader = {
      dialect: 'sqlite',
      ph: () => '?',
      all: async (sql, params) =>
        sqlite
          .prepare(sql)
          .safeIntegers(true)
          .all(...params.map((p) => (typeof p === 'boolean' ? Number(p) : p))) as Array<Record<string, unknown>>,
    };
    sqlite.exec('BEGIN');
    try {
      return { value: await fn(reader) };
    } finally {
      sqlite.exec('COMMIT');
    }
  } finally {
    sqlite.close();
  }
}
