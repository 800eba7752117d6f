// CSV records built by SQLite itself, for a threaded export's pages (csv-pages.ts): one statement call returns a
// batch of rows as the UTF-8 bytes of their records, so a thread makes no JavaScript value per cell and its isolate
// stays small (what four threads' peak memory was made of: docs/measurements.md). The bytes must be exactly those
// formats/csv.ts writes for the same rows, so SQL writes a cell only where its text is plainly the same (an
// integer's decimal digits, text as it is, NULL as an empty cell, a boolean column's 0/1 as false/true), and marks
// every other cell with a NUL byte (a real, whose shortest digits only JavaScript writes; a blob; an empty string,
// which is quoted). `plainBatch` then checks the batch's bytes: a marked cell, a quote, a delimiter, CR or LF inside
// a cell (the record and delimiter counts tell), a cell a spreadsheet could run as a formula, text that is not
// valid UTF-8. A batch that fails is read again and encoded by formats/csv.ts, so the file is the same bytes either
// way; test/integration/export/export-csv-records.test.ts compares them over values that take every branch.
import { isUtf8 } from 'node:buffer';
import type BetterSqlite3 from 'better-sqlite3';
import { quoteIdent } from '../../lib/quote-ident.js';
import type { ColumnInfo, ColumnKind, CsvSettings, TableQuery } from '../contract.js';

/**
 * Kinds whose values SQLite writes as formats/csv.ts does wherever SQL writes them. Reals (kind `number`, and
 * columns of no declared type) would fail nearly every batch, as would epoch timestamps, which JavaScript writes as
 * ISO text, and blobs: such a table is encoded in JavaScript throughout, as before.
 */
const SQL_KINDS: ReadonlySet<ColumnKind> = new Set<ColumnKind>([
  'integer',
  'text',
  'json',
  'timestamp',
  'date',
  'boolean',
]);

/** concat_ws takes at most SQLite's function argument limit (127 by default); wider records are nested. */
const CELLS_PER_CALL = 100;

/** The NUL byte SQL writes for a cell it leaves to formats/csv.ts. */
const LEFT = 'char(0)';

/** A batch of records as SQLite wrote them: the bytes, how many rows, the last rowid and the highest load_id. */
export interface SqlBatch {
  bytes: Buffer | null;
  rows: number;
  last: bigint | null;
  maxLoadId: bigint | null;
}

export interface SqlCsvRecords {
  /** The batch of at most `batchRows` rows from rowid `from` (inclusive) and below `before` (null: no bound). */
  batch(reader: BetterSqlite3.Database, from: bigint, before: bigint | null): SqlBatch;
  /** Whether `batch.bytes` are exactly what formats/csv.ts writes for its rows. */
  plain(batch: SqlBatch): boolean;
}

/**
 * SQLite's records for this export, or null where SQL cannot write them as formats/csv.ts does for most rows: a
 * column of another kind (SQL_KINDS), a computed column, a null text or delimiter that needs more than a plain
 * cell, a database whose text is not UTF-8.
 */
export function sqlCsvRecords(
  reader: BetterSqlite3.Database,
  query: TableQuery,
  columns: ColumnInfo[],
  settings: CsvSettings,
  batchRows: number,
  loadIdIndex: number,
): SqlCsvRecords | null {
  const delimiter = settings.delimiter;
  if (settings.nullText !== '' || !/^[\x01-\x7f]$/.test(delimiter) || /[0-9A-Za-z"\r\n]/.test(delimiter)) return null;
  if (!columns.every((c, i) => SQL_KINDS.has(c.kind) && query.columns[i] === quoteIdent(c.name))) return null;
  if (String(reader.pragma('encoding', { simple: true })) !== 'UTF-8') return null;
  const crlf = settings.lineEnding === 'crlf';
  const cells = columns.map((c) => cellSql(c.kind, quoteIdent(c.name)));
  const sqlText = (s: string) => `'${s.replaceAll("'", "''")}'`;
  const record = `${concat(cells, sqlText(delimiter))} || ${crlf ? 'char(13, 10)' : 'char(10)'}`;
  const loadId = loadIdIndex >= 0 ? `, ${query.columns[loadIdIndex]} as lid` : '';
  const where = (bounded: boolean) =>
    [...query.where, 'rowid >= ?', ...(bounded ? ['rowid < ?'] : [])].map((w) => `(${w})`).join(' and ');
  // The aggregate's ORDER BY is what guarantees the records' order (a subquery's order is not carried into an
  // aggregate by SQL's rules); NOT INDEXED keeps each batch a seek on the rowid, as pages.ts explains.
  const sql = (bounded: boolean) =>
    `select cast(group_concat(r, '' order by rid) as blob), count(*), max(rid), ${loadId ? 'max(lid)' : 'null'} from (` +
    `select ${record} as r, rowid as rid${loadId} from ${quoteIdent(query.table)} not indexed where ${where(bounded)} ` +
    `order by rowid limit ${batchRows})`;
  const statements = new WeakMap<BetterSqlite3.Database, BetterSqlite3.Statement[]>();
  const statement = (reader: BetterSqlite3.Database, bounded: boolean) => {
    let mine = statements.get(reader);
    if (!mine) statements.set(reader, (mine = []));
    const i = bounded ? 1 : 0;
    return (mine[i] ??= reader.prepare(sql(bounded)).raw(true).safeIntegers(true));
  };
  const delimiterByte = delimiter.charCodeAt(0);
  return {
    batch(reader, from, before) {
      const params = [...query.params, from, ...(before === null ? [] : [before])];
      const [bytes, rows, last, maxLoadId] = statement(reader, before !== null).get(...params) as [
        Buffer | null,
        bigint,
        bigint | null,
        bigint | null,
      ];
      return { bytes, rows: Number(rows), last, maxLoadId };
    },
    plain: (b) =>
      b.bytes !== null && plainRecords(b.bytes, b.rows, columns.length, delimiterByte, crlf) && isUtf8(b.bytes),
  };
}

/** One cell's text by its column's kind, or LEFT; never NULL, which concat_ws would skip. */
function cellSql(kind: ColumnKind, x: string): string {
  const integer = kind === 'boolean' ? `case ${x} when 1 then 'true' when 0 then 'false' else ${x} end` : x;
  // Text with a quote is quoted here as formats/csv.ts quotes it (JSON text nearly always has one), so that every
  // quote in a batch is SQL's own quoting and plainRecords can tell a quoted cell from a plain one.
  const text = `iif(instr(${x}, '"'), '"' || replace(${x}, '"', '""') || '"', iif(${x} = '', ${LEFT}, ${x}))`;
  return `case typeof(${x}) when 'integer' then ${integer} when 'text' then ${text} when 'null' then '' else ${LEFT} end`;
}

function concat(cells: string[], delimiter: string): string {
  if (cells.length <= CELLS_PER_CALL) return `concat_ws(${delimiter}, ${cells.join(', ')})`;
  const groups: string[] = [];
  for (let i = 0; i < cells.length; i += CELLS_PER_CALL)
    groups.push(concat(cells.slice(i, i + CELLS_PER_CALL), delimiter));
  return concat(groups, delimiter);
}

const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const PLUS = 0x2b;
const MINUS = 0x2d;

/**
 * True when `bytes` are `rows` records of `width` cells that formats/csv.ts writes exactly so: no NUL (a cell SQL
 * left), every record ended by the record delimiter with width - 1 delimiters before it (a plain cell holding a
 * delimiter, CR or LF breaks the count: it would be quoted), quotes only as SQL's quoting of a whole cell, and no
 * cell starting as a formula would (=, @, tab, a full-width form, or + or - not followed by digits alone: "-5" is
 * a number however it is stored, "-x" is neutralised). Conservative: a cell formats/csv.ts writes as it is (a
 * formula-like JSON text) may still fail, and is then encoded there.
 */
export function plainRecords(
  bytes: Uint8Array,
  rows: number,
  width: number,
  delimiter: number,
  crlf: boolean,
): boolean {
  let records = 0;
  let cell = 0;
  let start = true;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    // A cell that starts with the delimiter is empty (NULL); the delimiter's own branch counts it.
    if (start && b !== delimiter) {
      start = false;
      if (b === QUOTE) {
        // SQL's quoting: the text's own quotes doubled, then the closing quote before a delimiter or record end.
        const first = i + 1 < n ? bytes[i + 1]! : -1;
        if (formulaStart(first) || first === PLUS || first === MINUS || first === CR || first === LF) return false;
        let j = i + 1;
        for (;;) {
          if (j >= n) return false;
          const c = bytes[j]!;
          if (c === 0) return false;
          if (c === QUOTE) {
            if (j + 1 < n && bytes[j + 1] === QUOTE) j += 2;
            else break;
          } else j++;
        }
        const after = j + 1 < n ? bytes[j + 1]! : -1;
        if (after !== delimiter && after !== CR && after !== LF) return false;
        i = j;
        continue;
      }
      if (b === PLUS || b === MINUS) {
        let j = i + 1;
        while (j < n && bytes[j]! >= 0x30 && bytes[j]! <= 0x39) j++;
        const end = j < n ? bytes[j]! : -1;
        if (j === i + 1 || (end !== delimiter && end !== CR && end !== LF)) return false;
        i = j - 1;
        continue;
      }
      if (formulaStart(b)) return false;
    }
    if (b === delimiter) {
      if (++cell >= width) return false;
      start = true;
    } else if (b === LF) {
      if (cell !== width - 1 || (crlf && (i === 0 || bytes[i - 1] !== CR))) return false;
      records++;
      cell = 0;
      start = true;
    } else if (b === CR) {
      if (!crlf || i + 1 >= n || bytes[i + 1] !== LF) return false;
    } else if (b === QUOTE || b === 0) return false;
  }
  return records === rows && start && cell === 0;
}

/** '=', '@', tab, and 0xEF, the first byte of the full-width forms U+FF0B, U+FF0D, U+FF1D and U+FF20. */
function formulaStart(b: number): boolean {
  return b === 0x3d || b === 0x40 || b === 0x09 || b === 0xef;
}
