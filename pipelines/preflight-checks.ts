// `validate` for checks and watches on inferred tables (<pipeline>_items...): their columns are known only to the
// destination, from schema_history. Read without changing anything (SQLite opened read-only, Postgres a plain
// SELECT); a destination that does not hold the table yet gets a warning that the names cannot be verified, not
// an error. Fixed tables are checked by the schema itself (pipelines/checks-schema.ts).
import fs from 'node:fs';
import { parseDatabaseUrl } from '../destinations/open.js';
import { destinationOf } from '../destinations/index.js';
import { columnsOf, parseExpression } from '../checks/expression.js';
import { fixedColumns } from './checks-schema.js';
import type { PipelineIssue } from './errors.js';
import { positionInPipelineFile } from './loader.js';
import type { PipelineSpec } from './spec.js';

interface Named {
  table: string;
  columns: string[];
  path: Array<string | number>;
}

function namedByChecks(spec: PipelineSpec): Named[] {
  const out: Named[] = [];
  for (const [i, c] of (spec.checks ?? []).entries()) {
    if (!('table' in c) || c.table === undefined || fixedColumns(c.table)) continue;
    const cols =
      c.type === 'range'
        ? columnsOf(parseExpression(c.expression))
        : 'column' in c && c.column
          ? [c.column]
          : 'columns' in c && Array.isArray(c.columns)
            ? c.columns
            : [];
    out.push({ table: c.table, columns: cols, path: ['checks', i, 'table'] });
  }
  for (const [i, w] of (spec.watch ?? []).entries()) {
    if (w.type !== 'new_rows' || fixedColumns(w.table)) continue;
    out.push({
      table: w.table,
      columns: w.filter ? columnsOf(parseExpression(w.filter)) : [],
      path: ['watch', i, 'table'],
    });
  }
  return out;
}

/** A destination reached over the network (offline validation does not contact it); a bad URL is reported elsewhere. */
function isServer(url: string): boolean {
  try {
    return destinationOf(parseDatabaseUrl(url)).capabilities.server;
  } catch {
    return false;
  }
}

/** schema_history's columns of `tables` in the destination, when its adapter can read them cheaply without a writer's lock. */
async function registry(url: string, tables: string[]): Promise<Map<string, Set<string>> | undefined> {
  const parsed = parseDatabaseUrl(url);
  return destinationOf(parsed).schemaHistoryColumns(parsed as never, tables);
}

/** Columns every inferred table has besides its content (db/store/evolve/): lineage and keys. */
const SYSTEM_COLUMNS = [
  'pipeline',
  'load_id',
  'loaded_at',
  'row_hash',
  'row_key',
  'root_key',
  'parent_key',
  'list_index',
];

/**
 * Errors for inferred tables or columns the destination's schema_history does not have (once it has the table),
 * and warnings for names that cannot be verified yet.
 */
export async function inferredNameIssues(
  file: string,
  spec: PipelineSpec,
  opts: { offline?: boolean } = {},
): Promise<{ errors: PipelineIssue[]; warnings: PipelineIssue[] }> {
  const named = namedByChecks(spec);
  const errors: PipelineIssue[] = [];
  const warnings: PipelineIssue[] = [];
  if (named.length === 0) return { errors, warnings };
  const known =
    opts.offline && isServer(spec.destination.database)
      ? undefined
      : await registry(spec.destination.database, [...new Set(named.map((n) => n.table))]).catch(() => undefined);
  for (const n of named) {
    const at = (await positionInPipelineFile(file, n.path)) ?? { line: 1, col: 1 };
    const issue = (message: string): PipelineIssue => ({
      file,
      line: at.line,
      col: at.col,
      path: n.path
        .map((p) => (typeof p === 'number' ? `[${p}]` : p))
        .join('.')
        .replace(/\.\[/g, '['),
      message,
    });
    const cols = known?.get(n.table);
    if (!cols) {
      warnings.push(
        issue(
          `table '${n.table}' is inferred from the data and the destination does not hold it yet: its columns cannot be verified before the first run`,
        ),
      );
      continue;
    }
    const missing = n.columns.filter((c) => !cols.has(c) && !SYSTEM_COLUMNS.includes(c));
    if (missing.length > 0)
      errors.push(
        issue(
          `table '${n.table}' has no column ${missing.map((m) => `'${m}'`).join(', ')} in the destination; its columns: ${[...cols].sort().join(', ')}`,
        ),
      );
  }
  return { errors, warnings };
}
