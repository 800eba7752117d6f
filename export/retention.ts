// Retention of export files: per export entry and table, the newest N files its file-name template produced are
// kept and older ones deleted. Only names the template renders for this pipeline are touched (the pipeline
// literal, any table, a run timestamp as fileTimestamp writes it), so files of other pipelines or of people in
// the same folder are never matched. Templates without {timestamp} overwrite one file per table, and templates
// without {pipeline} cannot tell this pipeline's files from another's: both are left alone.
import fs from 'node:fs/promises';
import path from 'node:path';

export interface ExportRetentionResult {
  deleted: string[];
  kept: number;
  /** Export entries whose template this cannot prune safely (no {timestamp} or no {pipeline}). */
  skipped: Array<{ dir: string; fileName: string; reason: string }>;
}

const TIMESTAMP = '\\d{8}T\\d{6}(?:\\.\\d{3})?Z';

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A regex for the names the template renders for `pipeline`: groups 'table' (if templated) and 'ts'. The table
 * is one of `tables`, not any text: with '_' allowed in pipeline names, `shop_{table}` would otherwise also match
 * pipeline 'shop_eu''s files.
 */
export function templatePattern(template: string, pipeline: string, tables: readonly string[]): RegExp {
  let source = '';
  let last = 0;
  for (const m of template.matchAll(/\{(pipeline|table|timestamp)\}/g)) {
    source += escape(template.slice(last, m.index));
    source +=
      m[1] === 'pipeline'
        ? escape(pipeline)
        : m[1] === 'table'
          ? `(?<table>${tables.map(escape).join('|')})`
          : `(?<ts>${TIMESTAMP})`;
    last = m.index + m[0].length;
  }
  source += escape(template.slice(last));
  return new RegExp(`^${source}$`);
}

export async function pruneExportFiles(opts: {
  pipeline: string;
  exports: ReadonlyArray<{ dir: string; file_name: string; tables: readonly string[] }>;
  /** Every table an export with `tables: []` may write (the data tables). */
  allTables: readonly string[];
  keep: number;
}): Promise<ExportRetentionResult> {
  const out: ExportRetentionResult = { deleted: [], kept: 0, skipped: [] };
  for (const e of opts.exports) {
    if (!e.file_name.includes('{timestamp}') || !e.file_name.includes('{pipeline}')) {
      out.skipped.push({
        dir: e.dir,
        fileName: e.file_name,
        reason: !e.file_name.includes('{timestamp}')
          ? 'no {timestamp}: one file per table, overwritten'
          : "no {pipeline}: other pipelines' files would match",
      });
      continue;
    }
    const pattern = templatePattern(e.file_name, opts.pipeline, e.tables.length > 0 ? e.tables : opts.allTables);
    let names: string[];
    try {
      names = await fs.readdir(e.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    const groups = new Map<string, Array<{ name: string; ts: string }>>();
    for (const name of names) {
      const m = pattern.exec(name);
      if (!m?.groups?.['ts']) continue;
      const key = m.groups['table'] ?? '';
      groups.set(key, [...(groups.get(key) ?? []), { name, ts: m.groups['ts'] }]);
    }
    for (const files of groups.values()) {
      // Timestamps are fixed-width UTC (fileTimestamp), so text order is time order.
      files.sort((a, b) => b.ts.localeCompare(a.ts));
      out.kept += Math.min(files.length, opts.keep);
      for (const f of files.slice(opts.keep)) {
        const file = path.join(e.dir, f.name);
        await fs.rm(file, { force: true });
        out.deleted.push(file);
      }
    }
  }
  return out;
}
