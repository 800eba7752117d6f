// Pages of a SQLite table in rowid order, in a module of its own: export threads (csv-thread.ts) load it without
// the Postgres and DuckDB readers of rows.ts.
import type BetterSqlite3 from 'better-sqlite3';
import { quoteIdent } from '../../lib/quote-ident.js';
import type { RawRow, TableQuery } from '../../export/rows.js';

/**
 * Page cache of an export's read connection (SQLite's cache_size: negative is KiB). better-sqlite3 builds SQLite
 * with a 16 MB default, and an export reads the whole table once, so the cache filled with pages never read again,
 * per connection (each export thread has one; docs/measurements.md). A page of rows is one seek from
 * the root, whose few interior pages stay in 1 MB; the rest the operating system's file cache serves.
 */
export const EXPORT_READER_CACHE = -1024;

/**
 * The rows of `q` whose rowid is at least `from` and below `before` (null: no bound on that side), in rowid order,
 * one `all()` call per page of at most `batchSize` rows (the rowid is read last, after every column and the extra
 * load_id of incremental exports, and dropped). The caller holds the read transaction that makes the pages one
 * snapshot: sqliteTableBatches here, or an export thread (export/csv-thread.ts) reading its share of the rowids.
 */
export function* sqliteRowidPages(
  reader: BetterSqlite3.Database,
  q: TableQuery,
  batchSize: number,
  from: bigint | null,
  before: bigint | null,
): Generator<RawRow[]> {
  const statement = (lower: '>=' | '>' | null) =>
    pageStatement(reader, rowidPageSql(q, batchSize, lower, before !== null));
  const bound = (lower: bigint | null) => [
    ...q.params,
    ...(lower === null ? [] : [lower]),
    ...(before === null ? [] : [before]),
  ];
  const rowidAt = q.columns.length;
  let rows = statement(from === null ? null : '>=').all(...bound(from)) as RawRow[];
  const next = statement('>');
  for (;;) {
    if (rows.length === 0) return;
    const last = rows[rows.length - 1]![rowidAt] as bigint;
    for (let i = 0; i < rows.length; i++) rows[i]!.pop();
    yield rows;
    if (rows.length < batchSize) return;
    rows = next.all(...bound(last)) as RawRow[];
  }
}

/**
 * The reader's prepared statement for `sql`, prepared once per connection. A threaded export reads hundreds of rowid
 * pages per connection, and a statement prepared per page lived on (its SQLite memory outside V8's heap, which the
 * few small JavaScript objects never made V8 collect) until the connection closed: the export's peak RSS grew with
 * the table's rows (bench/csv-export.ts). A page plan needs at most four statements (lower bound or not, upper
 * bound or not), so they are kept with the connection and go when it does.
 */
const statements = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

function pageStatement(reader: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement {
  let mine = statements.get(reader);
  if (!mine) statements.set(reader, (mine = new Map()));
  let statement = mine.get(sql);
  if (!statement) mine.set(sql, (statement = reader.prepare(sql).raw(true).safeIntegers(true)));
  return statement;
}

/**
 * One page's statement: `lower` bounds the rowid from below with the next parameter, `bounded` from above with the
 * one after. NOT INDEXED keeps every page a seek on the rowid and a scan forward that stops after `batchSize` rows.
 * Without it, an export of one pipeline (`pipeline = ?`) had SQLite use the natural-key index, which starts with
 * pipeline: every page then read all of the pipeline's rows and sorted them by rowid to keep `batchSize`, so an
 * export took many times as long (docs/measurements.md; test/fast/export/export-page-plan.test.ts checks the plan).
 */
export function rowidPageSql(q: TableQuery, batchSize: number, lower: '>=' | '>' | null, bounded: boolean): string {
  const range = [...(lower ? [`rowid ${lower} ?`] : []), ...(bounded ? ['rowid < ?'] : [])];
  const where = [...q.where, ...range];
  return `select ${[...q.columns, 'rowid'].join(', ')} from ${quoteIdent(q.table)} not indexed${where.length > 0 ? ` where ${where.join(' and ')}` : ''} order by rowid limit ${batchSize}`;
}
