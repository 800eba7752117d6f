// Views the analyst reads beside the tables (described in descriptions.ts VIEW_DOCS), in SQL that SQLite, Postgres
// and DuckDB all take as written. Created by the migrations (SQLite and Postgres: the custom migration
// `warehouse_docs`; DuckDB: its baseline and step 6 in destinations/duckdb/ddl.ts).

/** The run states after which a run's load is complete (its data kept): lib/run-states.ts's words. */
const LOADED_STATES = ['succeeded', 'partial', 'failed_checks'] as const;

export const VIEW_SQL: Readonly<Record<'pipeline_freshness' | 'results_landed', string>> = {
  // loaded_at moves only when a row changes; a run that saw every row unchanged moves this.
  pipeline_freshness: `CREATE VIEW pipeline_freshness AS
SELECT pipeline, max(finished_at) AS last_seen_at, count(*) AS loaded_runs
FROM pipeline_runs
WHERE status IN (${LOADED_STATES.map((s) => `'${s}'`).join(', ')}) AND finished_at IS NOT NULL
GROUP BY pipeline`,
  // The results sync lands every result of the account, also those a pdf or leads pipeline landed in its own
  // table: those copies are marked, so that counting WHERE NOT is_copy counts each result once.
  results_landed: `CREATE VIEW results_landed AS
SELECT 'pdf_results' AS result_table, pipeline, id, scraping_run_id, scraper_name, status, created_at, false AS is_copy FROM pdf_results
UNION ALL
SELECT 'leads_results' AS result_table, pipeline, id, scraping_run_id, scraper_name, status, created_at, false AS is_copy FROM leads_results
UNION ALL
SELECT 'scraper_results' AS result_table, s.pipeline, s.id, s.scraping_run_id, s.scraper_name, s.status, s.created_at,
  (EXISTS (SELECT 1 FROM pdf_results p WHERE p.id = s.id) OR EXISTS (SELECT 1 FROM leads_results l WHERE l.id = s.id)) AS is_copy
FROM scraper_results s`,
};
export const VIEW_NAMES = Object.keys(VIEW_SQL) as Array<keyof typeof VIEW_SQL>;
