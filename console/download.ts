// "Download this view": the rows of a data view (its pipeline, sort and order; every page of it) written by the
// export module's own format writers, so a downloaded CSV or Parquet file is the same file `scrape-etl export`
// writes for those rows. The writer fills a temporary file, which is streamed to the browser and removed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { quoteIdent } from '../db/store/sql.js';
import { describeTable } from '../export/columns.js';
import { exportTyping } from '../export/database.js';
import { loadFormatWriter, type FormatSettings } from '../export/formats/index.js';
import { rowBatches } from '../export/rows.js';
import { modelColumnHints } from '../export/schema-hints.js';
import { resolveView, viewSql, type ViewSpec } from './data.js';
import type { ReadOnlySource } from './source.js';

export type DownloadFormat = 'csv' | 'parquet';

const BATCH_ROWS = 1000;

export async function downloadView(
  source: ReadOnlySource,
  view: ViewSpec,
  format: DownloadFormat,
): Promise<{ stream: ReadableStream<Uint8Array>; fileName: string; bytes: number }> {
  const resolved = await source.read((r) => resolveView(r, view));
  const notNullSort =
    resolved.sort !== undefined && resolved.meta.columns.find((c) => c.name === resolved.sort)!.notNull;
  const db = source.exportDatabase();
  const dest = db.adapter;
  // Declared types that are only affinities (SQLite) take the kinds the project's schema gives its columns.
  const columns = await describeTable(db, view.table, dest.capabilities.typedColumns ? undefined : modelColumnHints());
  const { sql, params } = viewSql(
    { ph: dest.sql.ph },
    {
      table: view.table,
      pipeline: view.pipeline,
      key: resolved.key,
      sort: resolved.sort,
      desc: resolved.desc,
      notNullSort,
      numericKeys: resolved.numericKeys,
    },
    columns.map((c) => quoteIdent(c.name)).join(', '),
  );
  const settings: FormatSettings = {
    format,
    delimiter: ',',
    bom: false,
    nullText: '',
    lineEnding: 'crlf',
    neutralizeFormulas: true,
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-console-'));
  const file = path.join(dir, `${view.table}.${format}`);
  try {
    const writer = await loadFormatWriter(format);
    await writer.write({
      path: file,
      table: view.table,
      columns,
      typing: exportTyping(db),
      batches: rowBatches(db, sql, params, BATCH_ROWS),
      settings,
    });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const bytes = fs.statSync(file).size;
  const rs = fs.createReadStream(file);
  rs.once('close', () => fs.rmSync(dir, { recursive: true, force: true }));
  const safe = `${view.pipeline}_${view.table}`.replace(/[^A-Za-z0-9_.-]/g, '_');
  return { stream: Readable.toWeb(rs) as ReadableStream<Uint8Array>, fileName: `${safe}.${format}`, bytes };
}
