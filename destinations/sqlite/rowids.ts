// Whether an SQLite table has rowids (a WITHOUT ROWID table or a view has none): the export's pages and threads
// seek on rowid.
import type BetterSqlite3 from 'better-sqlite3';
import { quoteIdent } from '../../lib/quote-ident.js';

export function hasRowids(db: BetterSqlite3.Database, table: string): boolean {
  const info = db.prepare('select type, wr from pragma_table_list where name = ?').get(table) as
    { type: string; wr: number } | undefined;
  return info !== undefined && info.type === 'table' && info.wr === 0;
}

/**
 * The statement that reads a table's lowest and highest rowid (`lo`, `hi`; null when it has no row): two seeks, one
 * subquery each. SQLite's min/max optimisation applies only to a select holding a single min() or max(): the two in
 * one select scanned the whole table (or its smallest index), on every connection that asked, filling its page
 * cache (test/fast/export/export-page-plan.test.ts checks the plan).
 */
export function rowidSpanSql(table: string): string {
  const t = quoteIdent(table);
  return `select (select min(rowid) from ${t}) as lo, (select max(rowid) from ${t}) as hi`;
}
