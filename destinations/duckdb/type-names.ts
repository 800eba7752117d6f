// DuckDB reports types by its own names (VARCHAR, DOUBLE, TIMESTAMP WITH TIME ZONE); the exporter and the schema
// comparison both reason in Postgres's names, which the generated DuckDB schema was written in (db/duckdb/ddl.ts).

/** DuckDB's information_schema type names as Postgres spells them (only what the model and evolution create, plus the usual). */
const POSTGRES_NAMES: Readonly<Record<string, string>> = {
  BIGINT: 'bigint',
  INTEGER: 'integer',
  SMALLINT: 'smallint',
  TINYINT: 'smallint',
  UINTEGER: 'bigint',
  USMALLINT: 'integer',
  UTINYINT: 'smallint',
  DOUBLE: 'double precision',
  FLOAT: 'real',
  BOOLEAN: 'boolean',
  VARCHAR: 'text',
  JSON: 'json',
  'TIMESTAMP WITH TIME ZONE': 'timestamp with time zone',
  TIMESTAMP: 'timestamp without time zone',
  DATE: 'date',
  BLOB: 'bytea',
};

export function postgresTypeName(duck: string): string {
  const t = duck.toUpperCase();
  if (t.startsWith('DECIMAL') || t === 'HUGEINT' || t === 'UHUGEINT' || t === 'UBIGINT') return 'numeric';
  return POSTGRES_NAMES[t] ?? duck.toLowerCase();
}
