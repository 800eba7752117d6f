// Export of database tables to files (CSV, Parquet, JSON Lines, XLSX): rows are streamed from the raw driver in
// batches to one writer per format (formats/), into a file that appears under its final name only when complete
// (atomic-file.ts); incremental exports take the rows loaded since the last export and move the watermark only
// once the file is in place. Table selection, watermarks, file names and atomicity live here, once, for every
// format; a format only turns batches of rows into bytes.
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { writeAtomically, removeAbandonedPartials } from './atomic-file.js';
import {
  describeTable,
  isInternalTable,
  listTables,
  tableHasPipelineRows,
  tableHasRows,
  type ColumnHints,
  type ColumnInfo,
} from './columns.js';
import { exportTyping, quoteIdent, type ExportDatabase } from './database.js';
import { wholeBodySql } from '../db/store/raw-responses.js';
import { defaultFileName, fileTimestamp, pathInside, renderFileName, validateFileNameTemplate } from './file-name.js';
import {
  EXPORT_FORMATS,
  loadFormatWriter,
  type ExportFormat,
  type FormatSettings,
  type FormatWriter,
} from './formats/index.js';
import { rowBatches, type RawRow, type TableQuery } from './rows.js';
import { inferredColumnHints, modelColumnHints } from './schema-hints.js';
import { typeColumns } from './typed.js';
import { ALL_PIPELINES, advanceWatermark, readLastExportedFile, readWatermark } from './watermarks.js';

export interface ExportOptions {
  /** Only rows of this pipeline (tables need a `pipeline` column); also names the watermark. */
  pipeline?: string;
  /**
   * Tables to export; empty or absent = every table with lineage columns, or with `pipeline` set, every such table
   * holding rows of it (none: nothing is written and the result is []).
   */
  tables?: string[];
  outDir: string;
  /** File format; default 'csv'. The options marked "CSV only" must keep their defaults for the others. */
  format?: ExportFormat;
  /** 'incremental' writes only rows with `load_id` above the watermark of (pipeline, table). Default 'full'. */
  mode?: 'full' | 'incremental';
  /**
   * Incremental exports: when no row of a table is new since the last export, write a file that holds no rows (a
   * CSV header, an empty sheet, an empty Parquet file) as earlier versions did. Default false: no file is written
   * and the table is reported as unchanged (ExportReport.unchanged).
   */
  writeEmpty?: boolean;
  /** Field delimiter; default ','. CSV only. */
  delimiter?: string;
  /** Start each file with a UTF-8 byte order mark, so Excel reads it as UTF-8. Default false. CSV only. */
  bom?: boolean;
  /** Text for SQL NULL; default '' (an empty unquoted cell; empty strings are then written as ""). CSV only. */
  nullText?: string;
  /** File name template with {pipeline}, {table}, {timestamp}, or a fixed name. Default defaultFileName(format). */
  fileName?: string;
  /**
   * Prefix text cells starting with = + - @ tab CR LF with a single quote. Default true. Applies to the
   * spreadsheet formats (CSV, XLSX); Parquet and JSON Lines feed programs and always hold the text as stored.
   */
  neutralizeFormulas?: boolean;
  /** Per table, the columns to write, in this order; other tables get all their columns. */
  columns?: Record<string, string[]>;
  /** Record separator: 'crlf' as RFC 4180 says (default), or 'lf'. CSV only. */
  lineEnding?: 'crlf' | 'lf';
  /** Extra column kinds for SQLite (the project's Drizzle schema is always consulted). */
  columnHints?: ColumnHints;
  /** Stops the export; the file being written is removed and its watermark stays where it was. */
  signal?: AbortSignal;
  /** Called after every batch of rows written (e.g. to heartbeat a Temporal activity during a long table). */
  onProgress?: (progress: { table: string; rows: number }) => void;
  /**
   * The time {timestamp} renders; default now. A pipeline run passes its own start time, so a retried export
   * writes the same file names and replaces its own files instead of adding a second set.
   */
  timestamp?: Date;
  /**
   * Identifies the run this export belongs to (a pipeline run's workflow id). An incremental table whose
   * watermark this run already moved with this same file is not exported again: see exportOne.
   */
  runId?: string;
  /**
   * CSV from a SQLite file: threads that read and encode a large table's rows side by side (destinations/sqlite/csv-threads.ts).
   * Default exportThreads(): SCRAPE_ETL_EXPORT_THREADS, or the machine's cores, at most 2 either way; 1 uses none.
   */
  threads?: number;
  /**
   * Only rows whose load_id is above this (null: every row), as an incremental export reads them, but the caller
   * keeps the watermark: no export_watermarks row is read or moved, and the file reports the highest load id it
   * holds (ExportedFile.maxLoadId). The lake (targets/lake.ts) moves its own watermark once its manifest is written.
   */
  loadIdsAbove?: bigint | null;
  /** Only rows whose columns equal these values (null: IS NULL): one hive partition of the lake. */
  equal?: Array<{ column: string; value: string | number | bigint | boolean | null }>;
}

export interface ExportedFile {
  table: string;
  /** Absolute path of the written file. */
  file: string;
  rows: number;
  /** Threads that read and encoded the rows, when more than the calling thread did (destinations/sqlite/csv-threads.ts). */
  threads?: number;
  /** With ExportOptions.loadIdsAbove: the highest load_id written (null: no row). */
  maxLoadId?: bigint | null;
}

/** What an export did: the files it wrote, and the tables an incremental export found nothing new in. */
export interface ExportReport {
  files: ExportedFile[];
  /** Tables with no row new since the last incremental export: no file was written for them (see writeEmpty). */
  unchanged: string[];
}

// Rows are read in batches of about this many cells (at most 1,000 rows). A batch stays alive while it is formatted,
// so batches of 1,000 rows of a wide table (57 columns of marketplace_products) survived V8's young-generation
// collections and were copied by each one, and garbage collection took a large share of a CSV export; batches sized
// by cells keep it small (bench/csv-export.ts, docs/measurements.md).
const BATCH_CELLS = 4096;

interface Settings extends FormatSettings {
  mode: 'full' | 'incremental';
  fileName: string;
  writeEmpty: boolean;
}

const CSV_DEFAULTS = { delimiter: ',', bom: false, nullText: '', lineEnding: 'crlf' } as const;

function settingsOf(o: ExportOptions): Settings {
  const format = o.format ?? 'csv';
  if (!EXPORT_FORMATS.includes(format))
    throw new Error(`export: format "${String(format)}" is not one of ${EXPORT_FORMATS.join(', ')}`);
  if (format !== 'csv') {
    // Silently ignoring a CSV setting would leave the user wondering why the Parquet file has no BOM.
    for (const key of Object.keys(CSV_DEFAULTS) as Array<keyof typeof CSV_DEFAULTS>) {
      if (o[key] !== undefined && o[key] !== CSV_DEFAULTS[key])
        throw new Error(`export: ${key} applies to CSV only, not to format ${format}`);
    }
  }
  const s: Settings = {
    format,
    mode: o.mode ?? 'full',
    writeEmpty: o.writeEmpty ?? false,
    delimiter: o.delimiter ?? CSV_DEFAULTS.delimiter,
    bom: o.bom ?? CSV_DEFAULTS.bom,
    nullText: o.nullText ?? CSV_DEFAULTS.nullText,
    fileName: o.fileName ?? defaultFileName(format),
    neutralizeFormulas: o.neutralizeFormulas ?? true,
    lineEnding: o.lineEnding ?? CSV_DEFAULTS.lineEnding,
  };
  if (s.mode !== 'full' && s.mode !== 'incremental')
    throw new Error(`export: mode "${String(s.mode)}" is not 'full' or 'incremental'`);
  if (o.writeEmpty === true && s.mode !== 'incremental')
    throw new Error('export: writeEmpty applies to incremental exports only (a full export always writes its file)');
  if (s.delimiter === '' || /["\r\n]/.test(s.delimiter)) {
    throw new Error(
      `export: delimiter ${JSON.stringify(s.delimiter)} cannot be used; it must be non-empty and contain no quote or line break`,
    );
  }
  if (o.threads !== undefined && (!Number.isInteger(o.threads) || o.threads < 1))
    throw new Error(`export: threads ${String(o.threads)} is not a positive integer`);
  if (s.lineEnding !== 'crlf' && s.lineEnding !== 'lf')
    throw new Error(`export: line ending "${String(s.lineEnding)}" is not 'crlf' or 'lf'`);
  if (o.pipeline !== undefined && (o.pipeline === '' || o.pipeline === ALL_PIPELINES)) {
    throw new Error(`export: pipeline name ${JSON.stringify(o.pipeline)} is not a pipeline name`);
  }
  return s;
}

/** The files written; see exportTablesReport for the tables an incremental export skipped as unchanged. */
export async function exportTables(db: ExportDatabase, options: ExportOptions): Promise<ExportedFile[]> {
  return (await exportTablesReport(db, options)).files;
}

export async function exportTablesReport(db: ExportDatabase, options: ExportOptions): Promise<ExportReport> {
  const settings = settingsOf(options);
  const inferred = await inferredColumnHints(db);
  // Declared types that are only affinities (SQLite) take the kinds the project's schema and the caller give.
  const hints = db.adapter.capabilities.typedColumns
    ? inferred
    : mergeHints(mergeHints(modelColumnHints(), inferred), options.columnHints);
  const tables = await chooseTables(db, options, hints);
  // A run that loaded nothing has nothing to export; that is not an error for the run.
  if (tables.length === 0) return { files: [], unchanged: [] };
  validateFileNameTemplate(settings.fileName, tables.length);
  for (const t of Object.keys(options.columns ?? {})) {
    if (!tables.some((x) => x.name === t))
      throw new Error(`export: columns are given for table "${t}", which is not being exported`);
  }

  const outDir = resolve(options.outDir);
  // Every file name is rendered and checked before anything is created, so a refused name leaves no trace.
  const timestamp = fileTimestamp(options.timestamp ?? new Date());
  const names = new Set<string>();
  const targets = tables.map(({ name: table, columns }) => {
    const fileName = renderFileName(settings.fileName, { pipeline: options.pipeline ?? 'all', table, timestamp });
    if (names.has(fileName))
      throw new Error(`export: two tables would both be written to "${fileName}"; add {table} to the file name`);
    names.add(fileName);
    return { table, columns, path: pathInside(outDir, fileName) };
  });

  const writer = await loadFormatWriter(settings.format);
  await mkdir(outDir, { recursive: true });
  await removeAbandonedPartials(outDir);
  const report: ExportReport = { files: [], unchanged: [] };
  for (const { table, columns, path } of targets) {
    options.signal?.throwIfAborted();
    const written = await exportOne(db, table, columns, path, options, settings, writer);
    if (written === null) report.unchanged.push(table);
    else report.files.push(written);
  }
  return report;
}

/**
 * The tables an export of these options writes, with their columns: the ones named, or every data table holding
 * rows (of the pipeline, when given). The lake (targets/lake.ts) exports them one at a time.
 */
export async function exportableTables(
  db: ExportDatabase,
  options: Pick<ExportOptions, 'pipeline' | 'tables' | 'columnHints'>,
): Promise<Array<{ name: string; columns: ColumnInfo[] }>> {
  const inferred = await inferredColumnHints(db);
  const hints = db.adapter.capabilities.typedColumns
    ? inferred
    : mergeHints(mergeHints(modelColumnHints(), inferred), options.columnHints);
  return chooseTables(db, options as ExportOptions, hints);
}

function mergeHints(a: ColumnHints, b: ColumnHints | undefined): ColumnHints {
  if (!b) return a;
  const out: ColumnHints = { ...a };
  for (const [t, cols] of Object.entries(b)) out[t] = { ...(a[t] ?? {}), ...cols };
  return out;
}

async function chooseTables(
  db: ExportDatabase,
  options: ExportOptions,
  hints: ColumnHints | undefined,
): Promise<Array<{ name: string; columns: ColumnInfo[] }>> {
  if (options.tables && options.tables.length > 0) {
    const unique = [...new Set(options.tables)];
    return Promise.all(unique.map(async (name) => ({ name, columns: await describeTable(db, name, hints) })));
  }
  const chosen: Array<{ name: string; columns: ColumnInfo[] }> = [];
  let dataTables = 0;
  for (const name of await listTables(db)) {
    if (isInternalTable(name)) continue;
    const columns = await describeTable(db, name, hints);
    const names = new Set(columns.map((c) => c.name));
    // Data tables carry lineage; control tables (raw responses, run bookkeeping) do not have both columns.
    if (!names.has('pipeline') || !names.has('load_id')) continue;
    dataTables++;
    // Every engine creates every table of the model: without a pipeline, the tables no pipeline wrote to are left
    // out, as with one its tables without its rows are (a file of no rows for a table never used says nothing true).
    if (
      options.pipeline !== undefined
        ? !(await tableHasPipelineRows(db, name, options.pipeline))
        : !(await tableHasRows(db, name))
    )
      continue;
    chosen.push({ name, columns });
  }
  if (dataTables === 0 && options.pipeline === undefined) {
    throw new Error(
      'export: no tables to export: the database has no table with pipeline and load_id columns (is it a scrape-etl database?)',
    );
  }
  return chosen;
}

function pickColumns(table: string, all: ColumnInfo[], wanted: string[] | undefined): ColumnInfo[] {
  if (!wanted) return all;
  if (wanted.length === 0) throw new Error(`export: the column list for table "${table}" is empty`);
  return wanted.map((name) => {
    const col = all.find((c) => c.name === name);
    if (!col)
      throw new Error(
        `export: table "${table}" has no column "${name}" (columns: ${all.map((c) => c.name).join(', ')})`,
      );
    return col;
  });
}

async function exportOne(
  db: ExportDatabase,
  table: string,
  allColumns: ColumnInfo[],
  finalPath: string,
  options: ExportOptions,
  settings: Settings,
  writer: FormatWriter,
): Promise<ExportedFile | null> {
  const columns = pickColumns(table, allColumns, options.columns?.[table]);
  const has = (name: string) => allColumns.some((c) => c.name === name);
  const where: string[] = [];
  const params: unknown[] = [];
  const dest = db.adapter;
  const param = () => dest.sql.ph(params.length);

  if (options.pipeline !== undefined) {
    if (!has('pipeline')) {
      throw new Error(
        `export: table "${table}" has no pipeline column, so it cannot be limited to pipeline "${options.pipeline}"; export it without a pipeline`,
      );
    }
    params.push(options.pipeline);
    where.push(`pipeline = ${param()}`);
  }

  for (const { column, value } of options.equal ?? []) {
    if (!has(column)) throw new Error(`export: table "${table}" has no column "${column}" to select rows by`);
    if (value === null) where.push(`${quoteIdent(column)} is null`);
    else {
      params.push(value);
      where.push(`${quoteIdent(column)} = ${param()}`);
    }
  }

  const incremental = settings.mode === 'incremental';
  // Read like an incremental export (rows above a load id, the highest one tracked), the watermark kept by the caller.
  const callerWatermark = options.loadIdsAbove !== undefined;
  if (callerWatermark && incremental)
    throw new Error('export: loadIdsAbove keeps its own watermark; it cannot be combined with mode incremental');
  const watermarkKey = options.pipeline ?? ALL_PIPELINES;
  const selected = columns.map((c) => c.name);
  let loadIdIndex = -1;
  if (callerWatermark) {
    if (!has('load_id'))
      throw new Error(`export: table "${table}" has no load_id column, so its new rows cannot be told from the old`);
    if (options.loadIdsAbove !== null) {
      params.push(options.loadIdsAbove);
      where.push(`load_id > ${param()}`);
    }
    loadIdIndex = selected.indexOf('load_id');
    if (loadIdIndex < 0) loadIdIndex = selected.push('load_id') - 1;
  }
  if (incremental) {
    if (!has('load_id'))
      throw new Error(
        `export: table "${table}" has no load_id column, so it cannot be exported incrementally; use a full export`,
      );
    // This very file already moved the watermark (a retried export of the same run, after a crash between the
    // watermark and the caller's record of it): exporting again would replace it with the rows since, none.
    if (options.runId !== undefined) {
      const last = await readLastExportedFile(db, watermarkKey, table);
      if (last !== null && last.run === options.runId && last.file === finalPath)
        return { table, file: finalPath, rows: last.rows };
    }
    const watermark = await readWatermark(db, watermarkKey, table);
    if (watermark !== null) {
      params.push(watermark);
      where.push(`load_id > ${param()}`);
    }
    loadIdIndex = selected.indexOf('load_id');
    // The watermark needs load_id even when the file does not show it: read it as one extra, unwritten column.
    if (loadIdIndex < 0) loadIdIndex = selected.push('load_id') - 1;
  }

  const filter = where.length > 0 ? ` where ${where.join(' and ')}` : '';
  // Nothing new since the last incremental export: no file (unless asked for), the watermark stays. Rows loaded
  // after this look are simply new for the next export.
  if (
    incremental &&
    !settings.writeEmpty &&
    !(await hasRows(db, `select 1 as x from ${quoteIdent(table)}${filter} limit 1`, params))
  )
    return null;
  const query: TableQuery = { table, columns: selected.map((c) => selectExpression(table, c)), where, params };
  const stats: { rows: number; maxLoadId: bigint | null } = { rows: 0, maxLoadId: null };
  let threadsUsed = 0;

  // Loaded only for what it serves, as the format writers are: a Parquet export or a Postgres one never needs it.
  const parallel =
    settings.format === 'csv' && dest.capabilities.parallelExportReaders
      ? await dest.exportReader.csvThreads?.()
      : undefined;
  const threads = parallel
    ? parallel.csvThreadsFor(db, query, selected.length, options.threads ?? parallel.exportThreads())
    : 0;
  await writeAtomically(finalPath, async (tempPath) => {
    const progress = options.onProgress ? () => options.onProgress!({ table, rows: stats.rows }) : undefined;
    const signal = options.signal ? { signal: options.signal } : {};
    if (parallel && threads > 0) {
      const onChunk = (rows: number, maxLoadId: bigint | null) => {
        stats.rows += rows;
        if (maxLoadId !== null && (stats.maxLoadId === null || maxLoadId > stats.maxLoadId))
          stats.maxLoadId = maxLoadId;
        progress?.();
      };
      if (
        await parallel.writeCsvInThreads({
          path: tempPath,
          db,
          query,
          columns,
          settings,
          threads,
          batchRows: batchRows(selected.length),
          loadIdIndex,
          onChunk,
          ...(progress ? { onAlive: progress } : {}),
          ...signal,
        })
      ) {
        threadsUsed = threads;
        return;
      }
    }
    if (settings.format === 'parquet' && dest.parquetCopy) {
      // Rows go to Parquet without passing through JavaScript: DuckDB's own COPY (destinations/duckdb/parquet.ts), or
      // Postgres's CSV into DuckDB (destinations/postgres/parquet.ts), which declines (null) a table it cannot carry.
      const copyParquet = await dest.parquetCopy();
      const typed = typeColumns(table, columns, exportTyping(db));
      const onRows = (rows: number) => {
        stats.rows = rows;
        progress?.();
      };
      const out = await copyParquet(db, {
        path: tempPath,
        table,
        columns: typed.map((t) => ({ typed: t, expr: valueExpression(table, t.name) })),
        where,
        params,
        maxLoadId: incremental || callerWatermark,
        onRows,
        ...signal,
      });
      stats.rows = 0;
      if (out !== null) {
        stats.rows = out.rows;
        stats.maxLoadId = out.maxLoadId;
        progress?.();
        return;
      }
    }
    const batches = tracked(rowBatches(db, query, params, batchRows(selected.length)), loadIdIndex, stats, progress);
    await writer.write({ path: tempPath, table, columns, typing: exportTyping(db), batches, settings, ...signal });
  });

  // Only now that the file is durable under its final name: a crash before this line repeats these rows in the
  // next incremental export (at least once), it never skips them.
  if (incremental && stats.maxLoadId !== null) {
    await advanceWatermark(
      db,
      watermarkKey,
      table,
      stats.maxLoadId,
      options.runId === undefined ? undefined : { run: options.runId, file: finalPath, rows: stats.rows },
    );
  }
  return {
    table,
    file: finalPath,
    rows: stats.rows,
    ...(threadsUsed > 0 ? { threads: threadsUsed } : {}),
    ...(callerWatermark ? { maxLoadId: stats.maxLoadId } : {}),
  };
}

async function hasRows(db: ExportDatabase, sql: string, params: unknown[]): Promise<boolean> {
  for await (const batch of rowBatches(db, sql, params, 1)) if (batch.length > 0) return true;
  return false;
}

function batchRows(width: number): number {
  return Math.max(16, Math.min(1000, Math.floor(BATCH_CELLS / width)));
}

/**
 * The rows as they stream past the writer: counts them and keeps the highest load id for the watermark. Rows
 * may carry one extra trailing value (load_id read only for the watermark); writers use the first
 * `columns.length` values of each row.
 */
async function* tracked(
  batches: AsyncIterable<RawRow[]>,
  loadIdIndex: number,
  stats: { rows: number; maxLoadId: bigint | null },
  onBatch: (() => void) | undefined,
): AsyncGenerator<RawRow[]> {
  for await (const batch of batches) {
    if (loadIdIndex >= 0) {
      for (const raw of batch) {
        const v = raw[loadIdIndex];
        const id = typeof v === 'bigint' ? v : BigInt(v as string | number);
        if (stats.maxLoadId === null || id > stats.maxLoadId) stats.maxLoadId = id;
      }
    }
    stats.rows += batch.length;
    yield batch;
    // Resumed when the writer asks for the next batch: this one is written (or buffered by the format).
    onBatch?.();
  }
}

/**
 * What a column's cell is read from. A raw_responses row whose body is identical to one stored before keeps an empty
 * `body` and points at that row (`body_ref`): its export shows the whole body, read the way db/store/raw-responses.ts
 * reads it, not the empty placeholder.
 */
function selectExpression(table: string, column: string): string {
  const expr = valueExpression(table, column);
  return expr === quoteIdent(column) ? expr : `${expr} as ${quoteIdent(column)}`;
}

/** The expression a column's value is read from, without a name (see selectExpression). */
function valueExpression(table: string, column: string): string {
  if (table === 'raw_responses' && column === 'body') return wholeBodySql('raw_responses');
  return quoteIdent(column);
}
