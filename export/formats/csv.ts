// CSV (RFC 4180): every cell is formatted as text by cells.ts first, so both dialects write the same text for the
// same data; csv-stringify writes the header and defines the encoding of every cell.
//
// Why the data cells do not pass through csv-stringify one by one: its per-cell cost (a cast context, two tuples and
// a destructuring of its options per field, and for long JSON text eight scans and four copies) was most of an
// export's time and garbage (docs/measurements.md). A cell is written here exactly as csv-stringify writes it with
// stringifyOptions(): as it is when `quotingTest` finds nothing to quote (numbers, ids, plain words), otherwise in
// double quotes with its quotes doubled (RFC 4180 2.6-2.7, csv-stringify's only transformation with these options).
// test/fast/export/export-csv-encoding.test.ts checks the files are byte-identical to csv-stringify encoding every cell, for
// every delimiter, null text and line ending, over awkward values. Sending even the cells that need quotes through
// csv-stringify, one call per batch, still cost noticeably more CPU (docs/measurements.md).
import { open, type FileHandle } from 'node:fs/promises';
import { stringify, type Options as StringifyOptions } from 'csv-stringify/sync';
import { cellFormatter, numbersAsIs } from '../cells.js';
import type { ColumnInfo } from '../columns.js';
import type { RawRow } from '../rows.js';
import type { FormatSettings, FormatWriter } from './index.js';
import type { CsvSettings, ValueForms } from '../../destinations/contract.js';
import { collectAsWritten, holdYoungGeneration } from '../young-generation.js';

export const csvWriter: FormatWriter = {
  async write({ path, columns, typing, batches, settings, signal }) {
    const file = await open(path, 'wx');
    const out = new DoubleBufferedFile(file);
    const release = holdYoungGeneration();
    const written = collectAsWritten();
    try {
      for await (const text of csvText(batches, columns, typing.valueForms, settings)) {
        signal?.throwIfAborted();
        await out.append(text);
        written(text.length);
      }
      await out.finish();
      signal?.throwIfAborted();
    } finally {
      release();
      // On an error or abort a write may still be in flight; the file is closed (and then removed) after it.
      await out.settled();
      await file.close();
    }
  },
};

/**
 * Encodes text as UTF-8 into one of two reusable buffers and writes a full buffer while the next one fills, so
 * formatting and disk writes overlap and the output makes no garbage: no Buffer per chunk, no stream queue.
 * Memory stays at two buffers of about FLUSH_BYTES (more only for a single larger batch) whatever the table size.
 * 256 KB rather than 1 MB: less peak memory at the same speed, the writes four times as many and still few
 * (docs/measurements.md).
 */
const FLUSH_BYTES = 256 << 10;

export class DoubleBufferedFile {
  private buffers = [Buffer.allocUnsafe(2 * FLUSH_BYTES), Buffer.allocUnsafe(2 * FLUSH_BYTES)];
  private pending: Array<Promise<void> | undefined> = [undefined, undefined];
  private current = 0;
  private used = 0;
  /** Where the next buffer goes in the file: two writes can be in flight, so each names its position (pwrite). */
  private position = 0;

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

  /** Bytes already encoded (by an export thread, see destinations/sqlite/csv-threads.ts), copied in like text. */
  async appendBytes(bytes: Uint8Array): Promise<void> {
    if (this.used + bytes.length > this.buffers[this.current]!.length) {
      if (this.used > 0) await this.flush();
      if (bytes.length > this.buffers[this.current]!.length)
        this.buffers[this.current] = Buffer.allocUnsafe(bytes.length);
    }
    this.buffers[this.current]!.set(bytes, this.used);
    this.used += bytes.length;
    if (this.used >= FLUSH_BYTES) await this.flush();
  }

  async settled(): Promise<void> {
    await Promise.allSettled(this.pending);
  }

  async finish(): Promise<void> {
    if (this.used > 0) await this.flush();
    await Promise.all(this.pending);
  }

  /** Starts writing the current buffer and switches to the other one, once that one's earlier write is done. */
  private async flush(): Promise<void> {
    const i = this.current;
    const write = writeAll(this.file, this.buffers[i]!, this.used, this.position);
    this.position += this.used;
    // A failed write must reject here or in finish(), never as an unhandled rejection in between.
    write.catch(() => {});
    this.pending[i] = write;
    this.current = 1 - i;
    this.used = 0;
    await this.pending[this.current];
    this.pending[this.current] = undefined;
  }
}

async function writeAll(file: FileHandle, buffer: Buffer, length: number, position: number): Promise<void> {
  let done = 0;
  while (done < length) done += (await file.write(buffer, done, length - done, position + done)).bytesWritten;
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

/**
 * The CSV text of a table's header and of its batches of rows, for these columns and settings: the per-column
 * choices are made once here, and `rows` is called once per batch (in this thread, or in an export thread of
 * destinations/sqlite/csv-threads.ts; both write the same bytes).
 */
export interface CsvEncoder {
  /** The header record, after the byte order mark when asked for. */
  header: string;
  /** The records of one batch, each ended by the record delimiter. Values after `columns.length` are ignored. */
  rows(batch: RawRow[]): string;
}

export function csvEncoder(columns: ColumnInfo[], forms: ValueForms, settings: CsvSettings): CsvEncoder {
  const opts = stringifyOptions(settings);
  const recordDelimiter = opts.record_delimiter as string;
  const delimiter = settings.delimiter;
  const needsQuoting = quotingTest(delimiter);
  const numbersArePlain = delimiter.length === 1 && !FORMATTED_NUMBER_CHARS.test(delimiter);
  // NULL with the default null text is an empty unquoted cell; another null text is text like any other.
  const nullText = settings.nullText;
  const nullIsPlain = nullText === '' || !needsQuoting(nullText);
  // The cell formatters are chosen once per column (cells.ts), not per cell.
  const formatters = columns.map((c) => cellFormatter(c, forms, settings));
  const width = formatters.length;
  // Columns whose numbers (integers and reals) cells.ts writes as String(value), plain: most cells of a long table,
  // written here without the two formatter calls (bench/csv-export.ts). Which
  // columns those are is cells.ts's decision; whether the text needs no quoting is this file's (the delimiter).
  const numberAsIs = columns.map((c) => numbersArePlain && numbersAsIs(c, forms));
  const header = (settings.bom ? '\uFEFF' : '') + stringify([columns.map((c) => c.name)], opts);

  function rows(batch: RawRow[]): string {
    let out = '';
    for (let r = 0; r < batch.length; r++) {
      const raw = batch[r]!;
      for (let c = 0; c < width; c++) {
        const value = raw[c];
        if ((typeof value === 'bigint' || typeof value === 'number') && numberAsIs[c]) {
          out += c > 0 ? delimiter + String(value) : String(value);
          continue;
        }
        let text: string;
        let plain: boolean;
        if (value === null || value === undefined) {
          text = nullText;
          plain = nullIsPlain;
        } else {
          text = formatters[c]!(value) ?? nullText;
          plain = (numbersArePlain && (typeof value === 'bigint' || typeof value === 'number')) || !needsQuoting(text);
        }
        if (c > 0) out += delimiter;
        out += plain ? text : quoteField(text);
      }
      out += recordDelimiter;
    }
    return out;
  }
  return { header, rows };
}

async function* csvText(
  batches: AsyncIterable<RawRow[]>,
  columns: ColumnInfo[],
  forms: ValueForms,
  settings: FormatSettings,
): AsyncGenerator<string> {
  const encoder = csvEncoder(columns, forms, settings);
  yield encoder.header;
  for await (const batch of batches) yield encoder.rows(batch);
}

/** RFC 4180 quoting, as csv-stringify does it with its default quote and escape characters (both '"'). */
export function quoteField(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}
