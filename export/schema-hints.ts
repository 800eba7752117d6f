// A destination without typed columns (SQLite) declares the model's boolean columns as plain INTEGER, so the database
// alone cannot tell a flag from a count. The model's one definition can: this reads it generically (no table names
// here) so booleans are written true/false from every destination.
import { TABLES, type AnyTableDef } from '../db/model/schema/definition.js';
import type { ColumnHints } from './columns.js';
import type { ColumnKind, ExportDatabase } from '../destinations/contract.js';

let cached: ColumnHints | undefined;
/** The kinds the model's tables declare that a destination without typed columns loses: its booleans. */
export function modelColumnHints(): ColumnHints {
  if (cached) return cached;
  const hints: ColumnHints = {};
  for (const [table, def] of Object.entries(TABLES as Record<string, AnyTableDef>)) {
    for (const [column, c] of Object.entries(def.columns))
      if (c.type === 'bool') (hints[table] ??= {})[column] = 'boolean';
  }
  cached = hints;
  return hints;
}

/**
 * Kinds of the columns the loader inferred at run time (db/store/evolve/), from schema_history's logical types. The SQL
 * types lose them in SQLite (a bool is an INTEGER 0/1, a timestamp or JSON is TEXT) and for JSON in Postgres and
 * DuckDB (text): without this, one pipeline's export said BIGINT 0/1 from SQLite where DuckDB said BOOLEAN.
 * A database without schema_history (not the project's) has no inferred columns.
 */
export async function inferredColumnHints(db: ExportDatabase): Promise<ColumnHints> {
  const sql = 'select table_name, column_name, data_type from schema_history';
  let rows: Array<{ table_name: string; column_name: string; data_type: string }>;
  try {
    rows = (await db.adapter.exportReader.query(db, sql)) as typeof rows;
  } catch (err) {
    if (/no such table|does not exist/i.test((err as Error).message)) return {};
    throw err;
  }
  const hints: ColumnHints = {};
  const typed = db.adapter.capabilities.typedColumns;
  for (const r of rows) {
    const kind = INFERRED_KINDS[r.data_type]?.[typed ? 'typed' : 'affinity'];
    if (kind) (hints[r.table_name] ??= {})[r.column_name] = kind;
  }
  return hints;
}

/**
 * Per logical type (db/model/evolve/types.ts): the kind where declared types are only affinities (SQLite), and where they
 * are the values' types (`typedColumns`; only JSON, kept as text, needs it).
 */
const INFERRED_KINDS: Record<string, { affinity: ColumnKind; typed?: ColumnKind }> = {
  bool: { affinity: 'boolean' },
  json: { affinity: 'json', typed: 'json' },
  timestamp: { affinity: 'timestamp' },
  bigint: { affinity: 'integer' },
  double: { affinity: 'number' },
};
