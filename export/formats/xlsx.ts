// XLSX written as its XML parts into a zip stream (yazl), with back-pressure from the file all the way to the rows:
// a sheet's XML goes into a stream that yazl deflates into the file, and the next batch of rows is read only once
// that stream has room. Memory therefore stays the same whatever the row count. The earlier writer, exceljs's
// streaming WorkbookWriter, had no back-pressure between committed rows and its zip compressor, so the XML not yet
// compressed piled up in memory, growing with the row count (bench/export-xlsx.ts, docs/measurements.md).
//
// One workbook per table file, one sheet per EXCEL_MAX_DATA_ROWS rows: a table longer than Excel's 1,048,576-row
// limit continues on sheets named "<table> (2)", "<table> (3)", ..., each with the header row (bold, filled,
// frozen). Strings are inline (no shared-string table to hold in memory).
//
// Cell types: integers are numbers while Excel can hold them exactly and text beyond (see EXCEL_EXACT_LIMIT),
// doubles are numbers, booleans are booleans, timestamps are dates (UTC, to the millisecond: Excel has no zones
// and no microseconds), JSON is its text, text is neutralised like CSV (cells.ts).
import { createWriteStream } from 'node:fs';
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import yazl from 'yazl';
import { neutralizeFormula } from '../cells.js';
import { boolOf, doubleOf, int64Of, textOf, timestampMicrosOf, typeColumns, type TypedColumn } from '../typed.js';
import type { FormatWriter } from './index.js';

/** Excel's sheet size is 1,048,576 rows; the header takes one. */
export const EXCEL_MAX_DATA_ROWS = 1_048_575;
/** Excel refuses longer cell text (https://support.microsoft.com/office/excel-specifications-and-limits). */
const EXCEL_MAX_CELL_CHARS = 32_767;
/**
 * Excel keeps 15 significant digits: 9007199254740993 (2^53 + 1) would be shown and saved as 9007199254740990,
 * and so would any integer of 16 digits or more. Those are written as text (ids are identifiers, not amounts);
 * every integer below 10^15 is exact as a number.
 */
const EXCEL_EXACT_LIMIT = 10n ** 15n;
/** Sheet XML is handed to the zip stream in pieces of about this many characters. */
const PIECE_CHARS = 256 * 1024;
const MS_PER_DAY = 86_400_000;
/** Excel's serial day of 1970-01-01 (day 0 is 1899-12-30 in the 1900 date system). */
const EPOCH_SERIAL = 25_569;

// Style indexes in styles.xml below: 0 default, 1 date-time, 2 header.
const DATE_STYLE = 1;
const HEADER_STYLE = 2;

/** One cell's XML (without the cell's reference: readers count columns in order). */
type CellXml = (value: unknown) => string;

const XML_SPECIAL = /[&<>\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/** XML text: & < > escaped; control characters XML 1.0 cannot hold are dropped, as exceljs did. */
function xmlText(s: string): string {
  if (!XML_SPECIAL.test(s)) return s;
  let out = '';
  for (const ch of s) {
    const code = ch.charCodeAt(0);
    if (ch === '&') out += '&amp;';
    else if (ch === '<') out += '&lt;';
    else if (ch === '>') out += '&gt;';
    else if (code === 9 || code === 10 || code === 13 || (code > 31 && code !== 127)) out += ch;
  }
  return out;
}

function stringCell(s: string): string {
  // Excel keeps no empty text cell: an empty string is an empty cell, as it was with exceljs.
  if (s === '') return '<c/>';
  return `<c t="inlineStr"><is><t xml:space="preserve">${xmlText(s)}</t></is></c>`;
}

function numberCell(n: number | string): string {
  return `<c><v>${n}</v></c>`;
}

function cellXml(col: TypedColumn, neutralize: boolean): CellXml {
  const checked = (s: string): string => {
    if (s.length > EXCEL_MAX_CELL_CHARS) {
      throw new Error(
        `export: column "${col.name}" holds a text of ${s.length} characters; Excel cells hold at most ${EXCEL_MAX_CELL_CHARS}. Export this table as CSV, JSON Lines or Parquet`,
      );
    }
    return s;
  };
  switch (col.type) {
    case 'int64': {
      const int = int64Of(col);
      return (v) => {
        const n = int(v);
        return n < EXCEL_EXACT_LIMIT && n > -EXCEL_EXACT_LIMIT ? numberCell(n.toString()) : stringCell(n.toString());
      };
    }
    case 'double': {
      const num = doubleOf(col);
      // Excel has no NaN or Infinity; they are written as their names. String(n) is the shortest exact decimal.
      return (v) => {
        const n = num(v);
        return Number.isFinite(n) ? numberCell(String(n)) : stringCell(String(n));
      };
    }
    case 'bool': {
      const bool = boolOf(col);
      return (v) => `<c t="b"><v>${bool(v) ? 1 : 0}</v></c>`;
    }
    case 'timestamp_utc':
    case 'timestamp_local': {
      const micros = timestampMicrosOf(col);
      // Excel's serial date of the UTC wall-clock time (or the stored local time for a timestamp without zone), to
      // the millisecond, with the date-time format.
      return (v) => `<c s="${DATE_STYLE}"><v>${Number(micros(v) / 1000n) / MS_PER_DAY + EPOCH_SERIAL}</v></c>`;
    }
    case 'json': {
      const text = textOf(col);
      return (v) => stringCell(checked(text(v)));
    }
    default: {
      const text = textOf(col);
      return neutralize && col.type === 'text'
        ? (v) => stringCell(checked(neutralizeFormula(text(v))))
        : (v) => stringCell(checked(text(v)));
    }
  }
}

/** Sheet names: at most 31 characters, none of : \ / ? * [ ] (Excel's rules). */
function sheetName(table: string, part: number): string {
  const suffix = part === 1 ? '' : ` (${part})`;
  const base = table.replace(/[:\\/?*[\]]/g, '_').slice(0, 31 - suffix.length) || 'table';
  return `${base}${suffix}`;
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function sheetStart(typed: TypedColumn[]): string {
  const cols = typed
    .map((c, i) => {
      const width = Math.min(60, Math.max(12, c.name.length + 2, c.type.startsWith('timestamp') ? 24 : 0));
      return `<col min="${i + 1}" max="${i + 1}" width="${width}" customWidth="1"/>`;
    })
    .join('');
  const header = typed
    .map((c) => `<c s="${HEADER_STYLE}" t="inlineStr"><is><t xml:space="preserve">${xmlText(c.name)}</t></is></c>`)
    .join('');
  return (
    `${XML_HEAD}<worksheet xmlns="${MAIN_NS}" xmlns:r="${REL_NS}">` +
    `<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>` +
    `<sheetFormatPr defaultRowHeight="15"/><cols>${cols}</cols><sheetData><row r="1">${header}</row>`
  );
}

const SHEET_END = '</sheetData></worksheet>';

const STYLES =
  `${XML_HEAD}<styleSheet xmlns="${MAIN_NS}">` +
  `<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm:ss.000"/></numFmts>` +
  `<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>` +
  `<fills count="3"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill>` +
  `<fill><patternFill patternType="solid"><fgColor rgb="FFD9E1F2"/><bgColor indexed="64"/></patternFill></fill></fills>` +
  `<borders count="2"><border><left/><right/><top/><bottom/><diagonal/></border><border><left/><right/><top/><bottom style="thin"><color auto="1"/></bottom><diagonal/></border></borders>` +
  `<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>` +
  `<cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>` +
  `<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>` +
  `<xf numFmtId="0" fontId="1" fillId="2" borderId="1" xfId="0" applyFont="1" applyFill="1" applyBorder="1"/></cellXfs>` +
  `<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`;

function workbookParts(names: string[]): Array<[string, string]> {
  const attr = (s: string) => xmlText(s).replaceAll('"', '&quot;');
  return [
    [
      '[Content_Types].xml',
      `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
        `<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
        names
          .map(
            (_n, i) =>
              `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
          )
          .join('') +
        `<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`,
    ],
    [
      '_rels/.rels',
      `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        `<Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `${XML_HEAD}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><bookViews><workbookView/></bookViews><sheets>` +
        names.map((n, i) => `<sheet name="${attr(n)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
        `</sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        names
          .map(
            (_n, i) =>
              `<Relationship Id="rId${i + 1}" Type="${REL_NS}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
          )
          .join('') +
        `<Relationship Id="rId${names.length + 1}" Type="${REL_NS}/styles" Target="styles.xml"/></Relationships>`,
    ],
    ['xl/styles.xml', STYLES],
  ];
}

export const xlsxWriter: FormatWriter = {
  async write({ path, table, columns, typing, batches, settings, signal }) {
    const typed = typeColumns(table, columns, typing);
    const cells = typed.map((c) => cellXml(c, settings.neutralizeFormulas));
    const width = typed.length;
    const file = createWriteStream(path, { flags: 'wx' });
    const done = finished(file);
    done.catch(() => {}); // awaited below; an early failure is reported by the write that follows it
    const zip = new yazl.ZipFile();
    // The zip's own errors (and the file's) end the export; a failed file write surfaces through `done`.
    let zipError: Error | undefined;
    zip.outputStream.on('error', (err: Error) => (zipError ??= err));
    zip.outputStream.pipe(file);

    const names: string[] = [];
    let sheet: PassThrough | undefined;
    let sheetRows = 0;
    let pending = '';
    /** Hands the XML gathered so far to the sheet's stream, waiting while the zip has not taken the last piece. */
    const push = async () => {
      if (pending === '') return;
      const ok = sheet!.write(pending);
      pending = '';
      if (!ok) await waitForDrain(sheet!, done);
      if (zipError) throw zipError;
    };
    const endSheet = async () => {
      pending += SHEET_END;
      await push();
      sheet!.end();
    };
    const newSheet = async () => {
      if (sheet) await endSheet();
      names.push(sheetName(table, names.length + 1));
      sheet = new PassThrough({ highWaterMark: PIECE_CHARS * 2 });
      zip.addReadStream(sheet, `xl/worksheets/sheet${names.length}.xml`);
      pending = sheetStart(typed);
      sheetRows = 0;
    };
    try {
      await newSheet();
      for await (const batch of batches) {
        signal?.throwIfAborted();
        for (const raw of batch) {
          if (sheetRows === EXCEL_MAX_DATA_ROWS) await newSheet();
          sheetRows++;
          let row = '<row>';
          for (let c = 0; c < width; c++) {
            const v = raw[c];
            // NULL: no cell at all. openpyxl and Excel read the missing cell as empty.
            row += v === null || v === undefined ? '<c/>' : cells[c]!(v);
          }
          pending += `${row}</row>`;
          if (pending.length >= PIECE_CHARS) await push();
        }
      }
      signal?.throwIfAborted();
      await endSheet();
      for (const [name, xml] of workbookParts(names)) zip.addBuffer(Buffer.from(xml, 'utf8'), name);
      zip.end();
      await done;
      if (zipError) throw zipError;
    } catch (err) {
      // The zip stream would otherwise go on writing into the file the caller is about to remove. The stream opens
      // its file asynchronously: wait until it is closed, or an open finishing after the caller's removal would
      // leave the .partial file behind.
      sheet?.destroy();
      zip.outputStream.unpipe(file);
      file.destroy();
      if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
      throw err;
    }
  },
};

/** Resolves when the stream wants more, rejects if the file fails first (a full disk, a removed folder). */
function waitForDrain(stream: PassThrough, fileDone: Promise<void>): Promise<void> {
  return Promise.race([
    new Promise<void>((resolve) => stream.once('drain', resolve)),
    fileDone.then(() => {
      throw new Error('export: the XLSX file was closed before its rows were written');
    }),
  ]);
}
