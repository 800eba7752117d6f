// Whether an SQLite table has rowids (a WITHOUT ROWID table or a view has none): the export's pages and threads
// seek on rowid.
import type BetterSqlite3 from 'better-sqlite3';

export function hasRowids(db: BetterSqlite3.Database, table: string): boolean {
  const info = db.prepare('select type, wr from pragma_table_list where name = ?').get(table) as
    { type: string; wr: number } | undefined;
  return info !== undefined && info.type === 'table' && info.wr === 0;
}
