// Reading the schema history (`scrape-etl schema show`, the run's schema-change alert): apart from the registry
// (db/store/evolve/registry.ts), whose imports (value types, lossless JSON, the schema definition) a read does not need.
import type { Tx } from '../sql.js';
import { PATH_SEPARATOR } from '../../model/evolve/naming.js';
import type { SchemaColumn } from '../../model/evolve/schema-column.js';

export type { SchemaColumn };

export const HISTORY_SELECT =
  'SELECT table_name, column_name, data_type, change, variant_of, pipeline, load_id, changed_at, source_key FROM schema_history';

/** listSchemaHistory inside a transaction of the caller's, or on a read-only connection (destinations/sqlite/read-only.ts). */
export async function selectSchemaHistory(
  tx: Pick<Tx, 'ph' | 'all'>,
  pipeline: string,
  contentTable: string,
): Promise<SchemaColumn[]> {
  const rows = await tx.all(
    `${HISTORY_SELECT}
      WHERE pipeline = ${tx.ph(1)} OR table_name = ${tx.ph(2)} OR substr(table_name, 1, ${tx.ph(3)}) = ${tx.ph(4)} OR root_table = ${tx.ph(5)}
      ORDER BY table_name, load_id, column_name`,
    [
      pipeline,
      contentTable,
      `${contentTable}${PATH_SEPARATOR}`.length,
      `${contentTable}${PATH_SEPARATOR}`,
      contentTable,
    ],
  );
  return rows.map(schemaColumnOf);
}

export function schemaColumnOf(r: Record<string, unknown>): SchemaColumn {
  return {
    table: String(r['table_name']),
    column: String(r['column_name']),
    type: String(r['data_type']),
    change: String(r['change']),
    variantOf: r['variant_of'] === null ? null : String(r['variant_of']),
    pipeline: String(r['pipeline']),
    loadId: Number(r['load_id']),
    changedAt: r['changed_at'] instanceof Date ? r['changed_at'].toISOString() : String(r['changed_at']),
    key:
      r['source_key'] === null || r['source_key'] === undefined
        ? null
        : (JSON.parse(String(r['source_key'])) as unknown),
  };
}
