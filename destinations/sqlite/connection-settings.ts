// The settings every connection to a destination SQLite file gets, whoever opens it (openSqlite, the export's lean
// open, an export's own reader): one place, so the paths cannot drift apart.
import type BetterSqlite3 from 'better-sqlite3';

/** How long a statement waits for a lock another process holds (a load, a migration, an export's snapshot). */
export const BUSY_TIMEOUT_MS = 15_000;

/** Waits for another process's lock instead of failing at once. First: opening in WAL and migrating take locks. */
export function waitForLocks(sqlite: BetterSqlite3.Database): void {
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
}

/** A write commits as a load's does: in WAL mode, NORMAL syncs at checkpoints, and a crash loses no committed row. */
export function writeDurability(sqlite: BetterSqlite3.Database): void {
  sqlite.pragma('synchronous = NORMAL');
}
