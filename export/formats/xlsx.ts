// XLSX through exceljs's streaming workbook writer: rows are committed as they are written (inline strings, no
// shared-string table in memory); see the note in the row loop on what that does and does not bound. One workbook per table file, one sheet per
// EXCEL_MAX_DATA_ROWS rows: a table longer than Excel's 1,048,576-row limit continues on sheets named
// "<table> (2)", "<table> (3)", ..., each with the header row.
//
// Cell types: integers are numbers while Excel can hold them exactly and text beyond (see EXCEL_EXACT_DIGITS),
// doubles are numbers, booleans are booleans, timestamps are dates (UTC, to the millisecond: Excel has no zones
// and no microseconds), JSON is its text, text is neutralised like CSV (cells.ts).
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import ExcelJS from 'exceljs';
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
const DATE_FORMAT = 'yyyy-mm-dd hh:mm:ss.000';

type Cell = string | number | boolean | Date;

function converter(col: TypedColumn, neutralize: boolean): (value: unknown) => Cell {
  const checked = (s: string): string => {
    if (s.length > EXCEL_MAX_CELL_CHARS) {
      throw new Error(`export: column "${col.name}" holds a text of ${s.length} characters; Excel cells hold at most ${EXCEL_MAX_CELL_CHARS}. Export this table as CSV, JSON Lines or Parquet`);
    }
    return s;
  };
  switch (col.type) {
    case 'int64': {
      const int = int64Of(col);
      return (v) => {
        const n = int(v);
        return n < EXCEL_EXACT_LIMIT && n > -EXCEL_EXACT_LIMIT ? Number(n) : n.toString();
      };
    }
    case 'double': {
      const num = doubleOf(col);
      // Excel has no NaN or Infinity; they are written as their names.
      return (v) => {
        const n = num(v);
        return Number.isFinite(n) ? n : String(n);
      };
    }
    case 'bool':
      return boolOf(col);
    case 'timestamp_utc':
    case 'timestamp_local': {
      const micros = timestampMicrosOf(col);
      // exceljs turns a Date into Excel's serial day number from its UTC milliseconds, so the cell shows the
      // UTC wall-clock time (or the stored local time for a timestamp without zone).
      return (v) => new Date(Number(micros(v) / 1000n));
    }
    case 'json': {
      const text = textOf(col);
      return (v) => checked(text(v));
    }
    default: {
      const text = textOf(col);
      return neutralize && col.type === 'text' ? (v) => checked(neutralizeFormula(text(v))) : (v) => checked(text(v));
    }
  }
}

/** Sheet names: at most 31 characters, none of : \ / ? * [ ] (Excel's rules). */
function sheetName(table: string, part: number): string {
  const suffix = part === 1 ? '' : ` (${part})`;
  const base = table.replace(/[:\\/?*[\]]/g, '_').slice(0, 31 - suffix.length) || 'table';
  return `${base}${suffix}`;
}

export const xlsxWriter: FormatWriter = {
  async write({ path, table, columns, dialect, batches, settings, signal }) {
    const typed = typeColumns(table, columns, dialect);
    const convert = typed.map((c) => converter(c, settings.neutralizeFormulas));
    const width = typed.length;
    const file = createWriteStream(path, { flags: 'wx' });
    const done = finished(file);
    done.catch(() => {}); // awaited below; an early failure is reported by the write that follows it
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: file, useStyles: true, useSharedStrings: false });

    let part = 0;
    let sheet: ExcelJS.Worksheet | undefined;
    let sheetRows = 0;
    const newSheet = () => {
      sheet?.commit();
      part++;
      sheet = workbook.addWorksheet(sheetName(table, part), { views: [{ state: 'frozen', ySplit: 1 }] });
      // Column styles are inherited by every cell of the column: dates get a date format once, here.
      sheet.columns = typed.map((c) => ({
        key: c.name,
        width: Math.min(60, Math.max(12, c.name.length + 2, c.type.startsWith('timestamp') ? 24 : 0)),
        style: c.type.startsWith('timestamp') ? { numFmt: DATE_FORMAT } : {},
      }));
      const header = sheet.addRow(typed.map((c) => c.name));
      header.font = { bold: true };
      header.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFD9E1F2' } };
      header.border = { bottom: { style: 'thin' } };
      header.commit();
      sheetRows = 0;
    };
    try {
      newSheet();
      for await (const batch of batches) {
      signal?.throwIfAborted();
      for (const raw of batch) {
        if (sheetRows === EXCEL_MAX_DATA_ROWS) newSheet();
        const values: Array<Cell | null> = new Array(width);
        for (let c = 0; c < width; c++) {
          const v = raw[c];
          values[c] = v === null || v === undefined ? null : convert[c]!(v);
        }
        sheet!.addRow(values).commit();
        sheetRows++;
      }
      // Gives the zip compressor a turn between batches. exceljs 4 has no back-pressure for committed rows: its
      // sheet stream hands every chunk on without waiting, so the XML not yet compressed stays in memory and the
      // process grows with the row count (measured: 343 MB RSS at 400k rows, 655 MB at 1.2M; see
      // docs/csv-and-compose.md). Unlike the other formats, XLSX memory is therefore not flat.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
      signal?.throwIfAborted();
      sheet!.commit();
      await workbook.commit();
      await done;
    } catch (err) {
      // The zip stream would otherwise go on writing into the file the caller is about to remove. The stream opens
      // its file asynchronously: wait until it is closed, or an open finishing after the caller's removal would
      // leave the .partial file behind.
      file.destroy();
      if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
      throw err;
    }
  },
};
