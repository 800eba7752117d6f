// CSV (RFC 4180): every cell is formatted as text by cells.ts first, so both dialects write the same text for the
// same data; csv-stringify writes the header and encodes every cell that needs quoting.
//
// Why not every cell through csv-stringify: its per-cell cost (a cast context, two tuples and a destructuring of
// its options per field, ~1.4 µs a cell) was 70-90% of an export, far slower than reading the rows. Most cells
// (numbers, ids, plain words) need no quoting, and for those csv-stringify writes the text exactly as it is. So
// each batch is assembled here: a cell whose text is plain goes out as is, and the cells that need quoting, all of
// a batch at once, go through one csv-stringify call whose output replaces them. What counts as plain is decided
// by the same rules csv-stringify applies with our options (see `needsQuoting`), and test/export-csv-encoding
// checks the output is byte-identical to csv-stringify writing every cell.
import { open, type FileHandle } from 'node:fs/promises';
import { stringify, type Options as StringifyOptions } from 'csv-stringify/sync';
import { cellFormatter } from '../cells.js';
import type { ColumnInfo } from '../columns.js';
import type { RawRow } from '../rows.js';
import type { FormatSettings, FormatWriter } from './index.js';

export const csvWriter: FormatWriter = {
  async write({ path, columns, dialect, batches, settings, signal }) {
    const file = await open(path, 'wx');
    try {
      const out = new DoubleBufferedFile(file);
      for await (const text of csvText(batches, columns, dialect, settings)) {
        signal?.throwIfAborted();
        await out.append(text);
      }
      await out.finish();
      signal?.throwIfAborted();
    } finally {
      await file.close();
    }
  },
};

/**
 * Encodes text as UTF-8 into one of two reusable buffers and writes a full buffer while the next one fills, so
 * formatting and disk writes overlap and the output makes no garbage: no Buffer per chunk, no stream queue.
 * Memory stays at two buffers of about FLUSH_BYTES (more only for a single larger batch) whatever the table size.
 */
const FLUSH_BYTES = 1 << 20;

class DoubleBufferedFile {
  private buffers = [Buffer.allocUnsafe(2 * FLUSH_BYTES), Buffer.allocUnsafe(2 * FLUSH_BYTES)];
  private pending: Array<Promise<void> | undefined> = [undefined, undefined];
  private current = 0;
  private used = 0;

  constructor(private readonly file: FileHandle) {}

  async append(text: string): Promise<void> {
    // A UTF-16 code unit never takes more than 3 bytes of UTF-8.
    const room = text.length * 3;
    if (this.used + room > this.buffers[this.current]!.length) {
      if (this.used > 0) await this.flush();
      if (room > this.buffers[this.current]!.length) this.buffers[this.current] = Buffer.allocUnsafe(room);
    }
    this.used += this.buffers[this.current]!.write(text, this.used);
    if (this.used >= FLUSH_BYTES) await this.flush();
  }

  async finish(): Promise<void> {
    if (this.used > 0) await this.flush();
    await Promise.all(this.pending);
  }

  /** Starts writing the current buffer and switches to the other one, once that one's earlier write is done. */
  private async flush(): Promise<void> {
    const i = this.current;
    const write = writeAll(this.file, this.buffers[i]!, this.used);
    // A failed write must reject here or in finish(), never as an unhandled rejection in between.
    write.catch(() => {});
    this.pending[i] = write;
    this.current = 1 - i;
    this.used = 0;
    await this.pending[this.current];
    this.pending[this.current] = undefined;
  }
}

async function writeAll(file: FileHandle, buffer: Buffer, length: number): Promise<void> {
  let done = 0;
  while (done < length) done += (await file.write(buffer, done, length - done)).bytesWritten;
}

/** The csv-stringify options every CSV export uses; exported for the encoding test, which compares against them. */
export function stringifyOptions(settings: Pick<FormatSettings, 'delimiter' | 'lineEnding'>): StringifyOptions {
  return {
    delimiter: settings.delimiter,
    record_delimiter: settings.lineEnding === 'crlf' ? '\r\n' : '\n',
    // Empty strings are quoted so that they differ from NULL written as an empty unquoted cell. Any CR or LF is
    // quoted too, whatever the record delimiter, so that readers (Python's csv, spreadsheets) never split a record
    // at a lone "\r" or "\n" inside a cell.
    quoted_match: [/^$/, /[\r\n]/],
  };
}

/**
 * True when csv-stringify, with stringifyOptions(), would quote this text: it is empty, or holds a quote, CR, LF or
 * the delimiter, or (multi-character delimiters only) its end and the delimiter written after it would contain the
 * delimiter starting inside the cell (csv-stringify's "boundary fusion" rule, e.g. "a:" before "::").
 */
export function quotingTest(delimiter: string): (text: string) => boolean {
  if (delimiter.length === 1) {
    const special = new RegExp(`["\\r\\n${delimiter.replace(/[\\\]^-]/g, '\\$&')}]`);
    return (text) => text === '' || special.test(text);
  }
  return (text) => text === '' || /["\r\n]/.test(text) || (text + delimiter).indexOf(delimiter) < text.length;
}

// With a one-character delimiter that cannot occur in a formatted number, boolean or timestamp, a cell whose value is
// a number or bigint (SQLite) never needs quoting, so it skips the test.
const FORMATTED_NUMBER_CHARS = /[0-9A-Za-z.:+\-]/;

async function* csvText(batches: AsyncIterable<RawRow[]>, columns: ColumnInfo[], dialect: 'sqlite' | 'postgres', settings: FormatSettings): AsyncGenerator<string> {
  const opts = stringifyOptions(settings);
  const recordDelimiter = opts.record_delimiter as string;
  const delimiter = settings.delimiter;
  const needsQuoting = quotingTest(delimiter);
  const numbersArePlain = delimiter.length === 1 && !FORMATTED_NUMBER_CHARS.test(delimiter);
  // NULL with the default null text is an empty unquoted cell; another null text is text like any other.
  const nullText = settings.nullText;
  const nullIsPlain = nullText === '' || !needsQuoting(nullText);
  // The cell formatters are chosen once per column (cells.ts), not per cell.
  const formatters = columns.map((c) => cellFormatter(c, dialect, settings));
  const width = formatters.length;
  yield (settings.bom ? '\uFEFF' : '') + stringify([columns.map((c) => c.name)], opts);

  // Reused across batches: the text of every cell of a batch, and which of them need quoting.
  let cells: string[] = [];
  const quotedAt: number[] = [];
  const quotedRecords: string[][] = [];
  for await (const batch of batches) {
    const n = batch.length * width;
    if (cells.length < n) cells = new Array<string>(n);
    quotedAt.length = 0;
    quotedRecords.length = 0;
    let k = 0;
    for (let r = 0; r < batch.length; r++) {
      const raw = batch[r]!;
      for (let c = 0; c < width; c++, k++) {
        const value = raw[c];
        let text: string;
        let plain: boolean;
        if (value === null || value === undefined) {
          text = nullText;
          plain = nullIsPlain;
        } else {
          text = formatters[c]!(value) ?? nullText;
          plain = (numbersArePlain && (typeof value === 'bigint' || typeof value === 'number')) || !needsQuoting(text);
        }
        if (plain) {
          cells[k] = text;
        } else {
          quotedAt.push(k);
          quotedRecords.push([text]);
        }
      }
    }
    if (quotedAt.length > 0) {
      // One csv-stringify call for all the cells of the batch that need quoting, each as a one-field record.
      const encoded = quotedFields(stringify(quotedRecords, opts), recordDelimiter, quotedAt.length);
      for (let i = 0; i < quotedAt.length; i++) cells[quotedAt[i]!] = encoded[i]!;
    }
    let out = '';
    k = 0;
    for (let r = 0; r < batch.length; r++) {
      out += cells[k++];
      for (let c = 1; c < width; c++) out += delimiter + cells[k++];
      out += recordDelimiter;
    }
    yield out;
  }
}

/**
 * Splits csv-stringify's output for one-field records, every field quoted, into the fields: each is a quote, text
 * in which every quote is doubled, a quote, then the record delimiter. Anything else means csv-stringify did not
 * quote a cell that `quotingTest` said it would, and the export stops rather than write a file it cannot vouch for.
 */
function quotedFields(text: string, recordDelimiter: string, count: number): string[] {
  const fields = new Array<string>(count);
  let pos = 0;
  for (let i = 0; i < count; i++) {
    if (text.charCodeAt(pos) !== 34) throw new Error(`export: csv-stringify left a cell unquoted that needs quoting (${JSON.stringify(text.slice(pos, pos + 40))})`);
    let end = pos + 1;
    for (;;) {
      end = text.indexOf('"', end);
      if (end < 0) throw new Error('export: csv-stringify output ended inside a quoted cell');
      if (text.charCodeAt(end + 1) === 34) end += 2;
      else break;
    }
    fields[i] = text.slice(pos, end + 1);
    if (!text.startsWith(recordDelimiter, end + 1)) throw new Error(`export: unexpected csv-stringify output after a quoted cell (${JSON.stringify(text.slice(end, end + 40))})`);
    pos = end + 1 + recordDelimiter.length;
  }
  if (pos !== text.length) throw new Error('export: csv-stringify wrote more records than cells given');
  return fields;
}
