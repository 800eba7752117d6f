// CSV (RFC 4180) through csv-stringify: every cell is formatted as text by cells.ts first, so both dialects write
// the same text for the same data.
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify, type Options as StringifyOptions } from 'csv-stringify/sync';
import { cellFormatter, type CellFormatter } from '../cells.js';
import type { RawRow } from '../rows.js';
import type { FormatSettings, FormatWriter } from './index.js';

export const csvWriter: FormatWriter = {
  async write({ path, columns, dialect, batches, settings, signal }) {
    const formatters = columns.map((c) => cellFormatter(c, dialect, settings));
    const text = csvText(batches, columns.map((c) => c.name), formatters, settings);
    await pipeline(Readable.from(text, { objectMode: false }), createWriteStream(path, { flags: 'wx' }), { ...(signal ? { signal } : {}) });
  },
};

async function* csvText(batches: AsyncIterable<RawRow[]>, header: string[], formatters: CellFormatter[], settings: FormatSettings): AsyncGenerator<string> {
  const opts: StringifyOptions = {
    delimiter: settings.delimiter,
    record_delimiter: settings.lineEnding === 'crlf' ? '\r\n' : '\n',
    // Empty strings are quoted so that they differ from NULL written as an empty unquoted cell. Any CR or LF is
    // quoted too: csv-stringify on its own quotes only the exact record delimiter, so with CRLF records a lone
    // "\r" or "\n" went out bare, and readers (Python's csv, spreadsheets) split the record there.
    quoted_match: [/^$/, /[\r\n]/],
  };
  yield (settings.bom ? '\uFEFF' : '') + stringify([header], opts);
  const width = formatters.length;
  for await (const batch of batches) {
    const records: Array<Array<string | null>> = new Array(batch.length);
    for (let r = 0; r < batch.length; r++) {
      const raw = batch[r]!;
      const record: Array<string | null> = new Array(width);
      for (let c = 0; c < width; c++) record[c] = formatters[c]!(raw[c]);
      records[r] = record;
    }
    yield stringify(records, opts);
  }
}
