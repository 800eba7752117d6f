// The CSV writer encodes data cells itself, by csv-stringify's rules, instead of passing each through csv-stringify
// (export/formats/csv.ts says why). Here every file it writes is compared byte for byte with csv-stringify writing
// every cell of the same formatted rows, over awkward values and every delimiter, null text and line ending combination, and is
// read back by Python's csv module.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellFormatter } from '../../../export/cells.js';
import type { ColumnInfo } from '../../../export/columns.js';
import { DoubleBufferedFile, csvWriter, stringifyOptions } from '../../../export/formats/csv.js';
import type { FileHandle } from 'node:fs/promises';
import type { FormatSettings } from '../../../export/formats/index.js';
import type { RawRow } from '../../../export/rows.js';
import { readCsvWithPython } from '../../support/python-csv.js';
import { SQLITE_COLUMN_TYPES, SQLITE_VALUE_FORMS } from '../../../destinations/sqlite/column-types.js';

const COLUMNS: ColumnInfo[] = [
  { name: 'id', kind: 'integer', declared: 'INTEGER' },
  { name: 'text', kind: 'text', declared: 'TEXT' },
  { name: 'price', kind: 'number', declared: 'REAL' },
  { name: 'flag', kind: 'boolean', declared: 'INTEGER' },
  { name: 'doc', kind: 'json', declared: 'TEXT' },
  { name: 'any', kind: 'other', declared: '' },
];

const TEXTS = [
  '',
  ' ',
  'plain',
  'a,b',
  'a;b',
  'a|b',
  'a\tb',
  'a::b',
  'a:',
  ':a',
  'say "hi"',
  '"',
  '""',
  'line\nbreak',
  'cr\rhere',
  'crlf\r\n',
  '=1+1',
  '+1',
  '-1',
  '-x',
  '@sum',
  '\t=x',
  '\r=x',
  '\uFF1Dx',
  'Zürich',
  '東京',
  '😀,"',
  'NULL',
  '\\N',
  'a',
  'NaN',
  '1e21',
  'x'.repeat(3000) + ',"',
];

function rows(): RawRow[] {
  const out: RawRow[] = [];
  TEXTS.forEach((t, i) => {
    const numbers = [0, -1, 1.5, -0.25, 1e21, Number.NaN, Number.POSITIVE_INFINITY, 9007199254740993n, -5n];
    out.push([
      BigInt(i),
      t,
      numbers[i % numbers.length]!,
      i % 3 === 2 ? null : BigInt(i % 2),
      `{"t":${JSON.stringify(t)}}`,
      i % 4 === 0 ? null : i % 4 === 1 ? t : 7n,
    ]);
    out.push([null, null, null, null, null, t]);
  });
  return out;
}

async function* batchesOf(all: RawRow[], size: number): AsyncGenerator<RawRow[]> {
  for (let i = 0; i < all.length; i += size) yield all.slice(i, i + size);
}

/** What csv-stringify writes for the same rows when it encodes every cell itself. */
function reference(all: RawRow[], settings: FormatSettings): string {
  const formatters = COLUMNS.map((c) => cellFormatter(c, SQLITE_VALUE_FORMS, settings));
  const opts = stringifyOptions(settings);
  const records = all.map((raw) =>
    formatters.map((f, c) => f(raw[c]) ?? (settings.nullText === '' ? null : settings.nullText)),
  );
  return (settings.bom ? '\uFEFF' : '') + stringify([COLUMNS.map((c) => c.name), ...records], opts);
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-csv-encoding-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('CSV encoding: the same bytes as csv-stringify encoding every cell', () => {
  let n = 0;
  for (const delimiter of [',', ';', '\t', '|', '::', 'a', '1', '-']) {
    for (const nullText of ['', '\\N', 'NULL', ' ', ',', 'a']) {
      for (const lineEnding of ['crlf', 'lf'] as const) {
        it(`delimiter ${JSON.stringify(delimiter)}, null ${JSON.stringify(nullText)}, ${lineEnding}`, async () => {
          const settings: FormatSettings = {
            format: 'csv',
            delimiter,
            nullText,
            lineEnding,
            bom: n % 2 === 0,
            neutralizeFormulas: n % 3 !== 0,
          };
          const file = join(dir, `f${n++}.csv`);
          const all = rows();
          await csvWriter.write({
            path: file,
            table: 't',
            columns: COLUMNS,
            typing: { valueForms: SQLITE_VALUE_FORMS, columnTypes: SQLITE_COLUMN_TYPES },
            batches: batchesOf(all, 7),
            settings,
          });
          const written = await readFile(file, 'utf8');
          expect(written).toBe(reference(all, settings));
          // Python's csv module takes one-character delimiters only.
          if (delimiter.length === 1 && delimiter !== '1' && delimiter !== 'a' && delimiter !== '-') {
            const back = readCsvWithPython(file, delimiter);
            expect(back).toHaveLength(all.length + 1);
            expect(back.every((r) => r.length === COLUMNS.length)).toBe(true);
          }
        });
      }
    }
  }
});

it('writes a file of many megabytes (several buffers in flight) byte for byte, in order', async () => {
  const settings: FormatSettings = {
    format: 'csv',
    delimiter: ',',
    nullText: '',
    lineEnding: 'crlf',
    bom: false,
    neutralizeFormulas: true,
  };
  const all: RawRow[] = [];
  for (let i = 0; i < 4000; i++) {
    const t = `${String(i).padStart(6, '0')}:${'x'.repeat(1500 + (i % 7) * 100)}${i % 3 === 0 ? ',"quoted"' : ''}`;
    all.push([BigInt(i), t, i / 3, BigInt(i % 2), `{"i":${i}}`, i % 5 === 0 ? null : t]);
  }
  const file = join(dir, 'big.csv');
  await csvWriter.write({
    path: file,
    table: 't',
    columns: COLUMNS,
    typing: { valueForms: SQLITE_VALUE_FORMS, columnTypes: SQLITE_COLUMN_TYPES },
    batches: batchesOf(all, 50),
    settings,
  });
  const written = await readFile(file, 'utf8');
  expect(written.length).toBeGreaterThan(8_000_000);
  expect(written === reference(all, settings)).toBe(true);
});

it('keeps buffers in file order when a later write completes before an earlier one', async () => {
  // A file handle whose writes finish in reverse order of submission, as the thread pool may finish them. A write
  // without a position lands at the file offset when it runs, as write(2) would: the order of completion.
  let content = Buffer.alloc(0);
  let offset = 0;
  const queue: Array<() => void> = [];
  const fake = {
    write(buffer: Buffer, off: number, length: number, position?: number | null) {
      const bytes = Buffer.from(buffer.subarray(off, off + length));
      return new Promise((resolve) => {
        queue.push(() => {
          const at = position ?? offset;
          const next = Buffer.alloc(Math.max(content.length, at + length));
          content.copy(next);
          bytes.copy(next, at);
          content = next;
          offset = at + length;
          resolve({ bytesWritten: length, buffer });
        });
        // The earlier write is held back until a second one is queued, then both finish, newest first.
        if (queue.length >= 2) for (const run of queue.splice(0).reverse()) run();
      });
    },
  } as unknown as FileHandle;
  const out = new DoubleBufferedFile(fake);
  const parts = Array.from({ length: 6 }, (_, i) => String(i).repeat(700_000));
  const appending = (async () => {
    for (const p of parts) await out.append(p);
    await out.finish();
  })();
  // Let a lone last write finish too.
  const drain = setInterval(() => {
    for (const run of queue.splice(0)) run();
  }, 5);
  await appending;
  clearInterval(drain);
  expect(content.toString('latin1') === parts.join('')).toBe(true);
});
