// DuckDB's types of the model: it takes Postgres's type names (bigint, double precision, timestamp with time zone …)
// and its export reader converts rows to Postgres's text forms (export-reader.ts), so a DuckDB table is typed and
// written exactly as a Postgres one.
import type { ColumnTypeNames, ValueForms } from '../contract.js';
import { POSTGRES_COLUMN_TYPES, POSTGRES_VALUE_FORMS } from '../postgres/column-types.js';

export const DUCKDB_COLUMN_TYPES: ColumnTypeNames = POSTGRES_COLUMN_TYPES;

export const DUCKDB_VALUE_FORMS: ValueForms = POSTGRES_VALUE_FORMS;
