// An SQLite destination opened for `scrape-etl export --out`: better-sqlite3 alone. openSqlite (open.ts) also loads
// drizzle with the project's schema (its query builder and both dialects' table builders, most of the modules the
// command loaded) and reads every migration file, which an export never uses: it reads rows through the raw driver
// and writes only its watermark row (export/watermarks.ts) with plain SQL. So a file whose migrations are all applied
// and that is already in WAL mode (as openSqlite leaves it) is opened here with the same connection settings; any
// other goes through openSqlite, which brings it up to date.
import type { ExportHandle } from '../contract.js';
import { schemaIsCurrent } from './read-only.js';
// The adapter this engine's handles carry (read at run time only, so the import cycle with index.ts is harmless).
import { sqliteDestination } from './index.js';
import { waitForLocks, writeDurability } from './connection-settings.js';

/** The file opened for an export, or undefined (nothing left open) when openSqlite must open it. */
export async function openCurrentSqlite(file: string): Promise<ExportHandle | undefined> {
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  const sqlite = new BetterSqlite3(file, { fileMustExist: true });
  try {
    // As openSqlite sets them: another process may hold the write lock; a watermark write syncs as a load's does.
    waitForLocks(sqlite);
    if (sqlite.pragma('journal_mode', { simple: true }) !== 'wal' || !schemaIsCurrent(sqlite)) {
      sqlite.close();
      return undefined;
    }
    writeDurability(sqlite);
  } catch (err) {
    sqlite.close();
    throw err;
  }
  return {
    dialect: 'sqlite',
    adapter: sqliteDestination,
    sqlite,
    close: async () => {
      if (sqlite.open) sqlite.close();
    },
  };
}
