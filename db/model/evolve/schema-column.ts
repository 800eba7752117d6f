// One column of the schema registry (schema_history) as every reader shows it: the store reads the rows
// (db/store/evolve/history.ts), and the model's descriptions of inferred tables (db/model/schema/catalog.ts) take
// them without loading the store.
export interface SchemaColumn {
  table: string;
  column: string;
  type: string;
  change: string;
  variantOf: string | null;
  pipeline: string;
  loadId: number;
  changedAt: string;
  /** What the column holds (naming.ts source keys, parsed): the original key path, a variant, the overflow. */
  key: unknown;
}
