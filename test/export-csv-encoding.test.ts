// The CSV writer sends only the cells that need quoting through csv-stringify and writes the others as they are
// (export/formats/csv.ts). Here every file it writes is compared byte for byte with csv-stringify writing every cell
// of the same formatted rows, over awkward values and every delimiter, null text and line ending combination, and is
// read back by Python's csv module.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellFormatter } from '../export/cells.js';
import type { ColumnInfo } from '../export/columns.js';
import { csvWriter, stringifyOptions } from '../export/formats/csv.js';
import type { FormatSettings } from '../export/formats/index.js';
import type { RawRow } from '../export/rows.js';
import { readCsvWithPython } from './support/python-csv.js';

const COLUMNS: ColumnInfo[] = [
  { name: 'id', kind: 'integer', declared: 'INTEGER' },
  { name: 'text', kind: 'text', declared: 'TEXT' },
  { name: 'price', kind: 'number', declared: 'REAL' },
  { name: 'flag', kind: 'boolean', declared: 'INTEGER' },
  { name: 'doc', kind: 'json', declared: 'TEXT' },
  { name: 'any', kind: 'other', declared: '' },
];

const TEXTS = [
  '', ' ', 'plain', 'a,b', 'a;b', 'a|b', 'a\tb', 'a::b', 'a:', ':a', 'say "hi"', '"', '""', 'line\nbreak', 'cr\rhere', 'crlf\r\n',
  '=1+1', '+1', '-1', '-x', '@sum', '\t=x', '\r=x', '\uFF1Dx', 'Zürich', '東京', '😀,"', 'NULL', '\\N', 'a', 'NaN', '1e21', 'x'.repeat(3000) + ',"',
];

function rows(): RawRow[] {
  const out: RawRow[] = [];
  TEXTS.forEach((t, i) => {
    const numbers = [0, -1, 1.5, -0.25, 1e21, Number.NaN, Number.POSITIVE_INFINITY, 9007199254740993n, -5n];
    out.push([BigInt(i), t, numbers[i % numbers.length]!, i % 3 === 2 ? null : BigInt(i % 2), `{"t":${JSON.stringify(t)}}`, i % 4 === 0 ? null : i % 4 === 1 ? t : 7n]);
    out.push([null, null, null, null, null, t]);
  });
  return out;
}

async function* batchesOf(all: RawRow[], size: number): AsyncGenerator<RawRow[]> {
  for (let i = 0; i < all.length; i += size) yield all.slice(i, i + size);
}

/** What csv-stringify writes for the same rows when it encodes every cell itself. */
function reference(all: RawRow[], settings: FormatSettings): string {
  const formatters = COLUMNS.map((c) => cellFormatter(c, 'sqlite', settings));
  const opts = stringifyOptions(settings);
  const records = all.map((raw) => formatters.map((f, c) => f(raw[c]) ?? (settings.nullText === '' ? null : settings.nullText)));
  return (settings.bom ? '\uFEFF' : '') + stringify([COLUMNS.map((c) => c.name), ...records], opts);
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-csv-encoding-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('CSV encoding: only the cells that need it go through csv-stringify, with the same bytes as a whole-row csv-stringify', () => {
  let n = 0;
  for (const delimiter of [',', ';', '\t', '|', '::', 'a', '1', '-']) {
    for (const nullText of ['', '\\N', 'NULL', ' ', ',', 'a']) {
      for (const lineEnding of ['crlf', 'lf'] as const) {
        it(`delimiter ${JSON.stringify(delimiter)}, null ${JSON.stringify(nullText)}, ${lineEnding}`, async () => {
          const settings: FormatSettings = { format: 'csv', delimiter, nullText, lineEnding, bom: n % 2 === 0, neutralizeFormulas: n % 3 !== 0 };
          const file = join(dir, `f${n++}.csv`);
          const all = rows();
          await csvWriter.write({ path: file, table: 't', columns: COLUMNS, dialect: 'sqlite', batches: batchesOf(all, 7), settings });
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
