// The columns a table has in a destination, with logical types: what `schema` checks compare, and what the other
// checks test names against before they build SQL (a name that is not a column is never sent to the database).
import type { Tx } from '../db/store/sql.js';
import { TABLES, type ColumnType } from '../db/model/schema/definition.js';

/** Logical type names of checks (checks-schema.ts LOGICAL_TYPES), from the model's and the registry's names. */
const FROM_MODEL: Record<ColumnType, string> = {
  int64: 'int',
  int32: 'int',
  double: 'double',
  text: 'text',
  json: 'json',
  bool: 'bool',
  timestamp: 'timestamp',
};
const FROM_REGISTRY: Record<string, string> = {
  bigint: 'int',
  double: 'double',
  bool: 'bool',
  text: 'text',
  timestamp: 'timestamp',
  json: 'json',
};

function fromSql(sqlType: string): string {
  const t = sqlType.toLowerCase();
  if (/int/.test(t)) return 'int';
  if (/real|double|float|numeric|decimal/.test(t)) return 'double';
  if (/bool/.test(t)) return 'bool';
  if (/timestamp/.test(t)) return 'timestamp';
  return 'text';
}

/** Columns of `table` in the destination, name -> logical type; an empty map when the table does not exist. */
export async function tableColumns(tx: Tx, table: string): Promise<Map<string, string>> {
  const r = await tx.all(tx.adapter.catalog.columnsSql(tx.ph(1)), [table]);
  const rows = r.map((x) => ({ name: String(x['name']), type: String(x['type'] ?? '') }));
  const out = new Map<string, string>();
  if (rows.length === 0) return out;
  const model = (TABLES as Record<string, { columns: Record<string, { type: ColumnType }> }>)[table];
  const registry = new Map<string, string>();
  const hist = await tx.all(`SELECT column_name, data_type FROM schema_history WHERE table_name = ${tx.ph(1)}`, [
    table,
  ]);
  for (const h of hist) registry.set(String(h['column_name']), String(h['data_type']));
  for (const { name, type } of rows) {
    const m = model?.columns[name];
    out.set(name, m ? FROM_MODEL[m.type] : (FROM_REGISTRY[registry.get(name) ?? ''] ?? fromSql(type)));
  }
  return out;
}

/** The key columns that identify a failing row in a sample: the model's key without `pipeline`, else the load id. */
export function sampleKey(table: string, columns: ReadonlyMap<string, string>): string[] {
  const def = (
    TABLES as Record<string, { primaryKey?: readonly string[]; columns: Record<string, { identity?: boolean }> }>
  )[table];
  if (def?.primaryKey) return def.primaryKey.filter((c) => c !== 'pipeline');
  if (def) {
    const id = Object.entries(def.columns).find(([, c]) => c.identity)?.[0];
    if (id) return [id];
  }
  // Inferred tables (<pipeline>_items and children): their row key (db/store/evolve/), else which load wrote the row.
  if (columns.has('row_key')) return ['row_key'];
  return ['load_id'];
}
