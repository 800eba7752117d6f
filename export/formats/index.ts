// One writer per file format, behind one interface: export.ts streams batches of rows and owns everything else
// (tables, watermarks, file names, atomic files). Writers are imported on first use, so a CSV export never loads
// the Parquet or XLSX libraries.
import type { ColumnInfo } from '../columns.js';
import type { RawRow } from '../rows.js';
import type { CsvSettings, ExportTyping } from '../../destinations/contract.js';

export const EXPORT_FORMATS = ['csv', 'parquet', 'jsonl', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The file name extension of each format, used by the default file name template. */
export const FORMAT_EXTENSIONS: Record<ExportFormat, string> = {
  csv: 'csv',
  parquet: 'parquet',
  jsonl: 'jsonl',
  xlsx: 'xlsx',
};

/** A file's settings: the format, and the CSV settings (destinations/contract.ts CsvSettings; XLSX reads neutralizeFormulas). */
export interface FormatSettings extends CsvSettings {
  format: ExportFormat;
}

export interface WriteJob {
  /** The temporary file to create (it does not exist yet; create it exclusively). */
  path: string;
  table: string;
  /** The columns to write, in order. Rows may hold more values after these (see export.ts `tracked`). */
  columns: ColumnInfo[];
  /** How the engine hands its values and names the model's types (export/database.ts exportTyping). */
  typing: ExportTyping;
  /** Batches of raw driver rows; the next batch is read only when the writer asks for it (back-pressure). */
  batches: AsyncIterable<RawRow[]>;
  settings: FormatSettings;
  signal?: AbortSignal;
}

export interface FormatWriter {
  /** Writes the whole file; rejects (leaving cleanup to the caller) on any error or abort. */
  write(job: WriteJob): Promise<void>;
}

export async function loadFormatWriter(format: ExportFormat): Promise<FormatWriter> {
  switch (format) {
    case 'csv':
      return (await import('./csv.js')).csvWriter;
    case 'jsonl':
      return (await import('./jsonl.js')).jsonlWriter;
    case 'parquet':
      return (await import('./parquet.js')).parquetWriter;
    case 'xlsx':
      return (await import('./xlsx.js')).xlsxWriter;
  }
}
