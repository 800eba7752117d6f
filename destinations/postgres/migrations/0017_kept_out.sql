ALTER TABLE "pipeline_runs" ADD COLUMN "kept_out" integer;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "kept_out_sample" json;--> statement-breakpoint
ALTER TABLE "raw_responses" ADD COLUMN "kept_out" json;
--> statement-breakpoint
-- Their descriptions (db/model/schema/descriptions.ts), and the service timestamps' new ones (they say where a
-- value that is not a timestamp is counted), as 0014_warehouse_docs keeps every other one.
COMMENT ON COLUMN "pipeline_runs"."kept_out" IS 'Values the run''s loads kept out of their columns (a service timestamp that is not one, stored NULL; raw_responses keeps it as sent): the sum of its raw_responses'' kept_out counts. NULL for runs finished before it was counted.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."kept_out_sample" IS 'The first kept-out values (table, column, the row''s natural key, the value as sent cut at 60 characters, the raw_responses id holding it as rawResponseId), as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it. NULL when none.';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."kept_out" IS 'Values of this response its load kept out of their columns (stored NULL): {"count": n, "sample": [the first few]}, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it. NULL when none.';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."created_at" IS 'When the service created the scraper. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run counts it in pipeline_runs.kept_out and its log names it).';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."updated_at" IS 'When the service last updated the scraper. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run counts it in pipeline_runs.kept_out and its log names it).';
--> statement-breakpoint
COMMENT ON COLUMN "scraping_runs"."created_at" IS 'When the service created the run. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run counts it in pipeline_runs.kept_out and its log names it).';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."created_at" IS 'When the service created the record. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run counts it in pipeline_runs.kept_out and its log names it).';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."updated_at" IS 'When the service last updated the record. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run counts it in pipeline_runs.kept_out and its log names it).';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."created_at" IS 'When the service created the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run counts it in pipeline_runs.kept_out and its log names it).';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."updated_at" IS 'When the service last updated the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run counts it in pipeline_runs.kept_out and its log names it).';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."created_at" IS 'When the service created the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run counts it in pipeline_runs.kept_out and its log names it).';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."updated_at" IS 'When the service last updated the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run counts it in pipeline_runs.kept_out and its log names it).';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."created_at" IS 'When the service created the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run counts it in pipeline_runs.kept_out and its log names it).';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."updated_at" IS 'When the service last updated the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run counts it in pipeline_runs.kept_out and its log names it).';
--> statement-breakpoint
COMMENT ON COLUMN "results_landed"."created_at" IS 'When the service created it. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run counts it in pipeline_runs.kept_out and its log names it).';
