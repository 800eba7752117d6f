-- Columns typed for what they hold (issue 40; db/schema/definition.ts SQL_TYPES says why json and not jsonb): the
-- service's timestamps as timestamptz, JSON text as json, and last_seen_at on every table with a natural key. The
-- views on these tables are dropped first and made again at the end with every comment (`npx tsx
-- scripts/comment-statements.ts postgres`). A stored timestamp text that is not an instant becomes NULL (raw_responses
-- keeps every response as received); rows keep last_seen_at NULL until a run sees them.
DROP VIEW IF EXISTS results_landed;
--> statement-breakpoint
DROP VIEW IF EXISTS pipeline_freshness;
--> statement-breakpoint
CREATE FUNCTION pg_temp.scrape_etl_instant(t text) RETURNS timestamp with time zone LANGUAGE plpgsql AS $$
BEGIN
  -- Only a date and time with seconds and a zone is an instant (lib/iso-timestamp.ts takes the same forms).
  IF t !~ '^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d([.,]\d+)?(Z|z|[+-]\d\d(:?\d\d)?)$' THEN
    RETURN NULL;
  END IF;
  RETURN t::timestamp with time zone;
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$$;
--> statement-breakpoint
ALTER TABLE "check_results" ALTER COLUMN "failing_keys" SET DATA TYPE json USING "failing_keys"::json;
--> statement-breakpoint
ALTER TABLE "leads_results" ALTER COLUMN "created_at" SET DATA TYPE timestamp with time zone USING pg_temp.scrape_etl_instant("created_at");
--> statement-breakpoint
ALTER TABLE "leads_results" ALTER COLUMN "updated_at" SET DATA TYPE timestamp with time zone USING pg_temp.scrape_etl_instant("updated_at");
--> statement-breakpoint
ALTER TABLE "leads_results" ALTER COLUMN "extra" SET DATA TYPE json USING "extra"::json;
--> statement-breakpoint
ALTER TABLE "marketplace_product_attributes" ALTER COLUMN "brand_option" SET DATA TYPE json USING "brand_option"::json;
--> statement-breakpoint
ALTER TABLE "marketplace_product_models" ALTER COLUMN "tier_index" SET DATA TYPE json USING "tier_index"::json;
--> statement-breakpoint
ALTER TABLE "marketplace_product_tier_variations" ALTER COLUMN "images" SET DATA TYPE json USING "images"::json;
--> statement-breakpoint
ALTER TABLE "marketplace_product_tier_variations" ALTER COLUMN "properties" SET DATA TYPE json USING "properties"::json;
--> statement-breakpoint
ALTER TABLE "marketplace_product_tier_variations" ALTER COLUMN "summed_stocks" SET DATA TYPE json USING "summed_stocks"::json;
--> statement-breakpoint
ALTER TABLE "marketplace_product_tier_variations" ALTER COLUMN "display_indicators" SET DATA TYPE json USING "display_indicators"::json;
--> statement-breakpoint
ALTER TABLE "marketplace_products" ALTER COLUMN "rating_count" SET DATA TYPE json USING "rating_count"::json;
--> statement-breakpoint
ALTER TABLE "marketplace_products" ALTER COLUMN "label_ids" SET DATA TYPE json USING "label_ids"::json;
--> statement-breakpoint
ALTER TABLE "pdf_results" ALTER COLUMN "created_at" SET DATA TYPE timestamp with time zone USING pg_temp.scrape_etl_instant("created_at");
--> statement-breakpoint
ALTER TABLE "pdf_results" ALTER COLUMN "updated_at" SET DATA TYPE timestamp with time zone USING pg_temp.scrape_etl_instant("updated_at");
--> statement-breakpoint
ALTER TABLE "pdf_results" ALTER COLUMN "extra" SET DATA TYPE json USING "extra"::json;
--> statement-breakpoint
ALTER TABLE "pipeline_runs" ALTER COLUMN "rows_by_table" SET DATA TYPE json USING "rows_by_table"::json;
--> statement-breakpoint
ALTER TABLE "pipeline_runs" ALTER COLUMN "seen_by_table" SET DATA TYPE json USING "seen_by_table"::json;
--> statement-breakpoint
ALTER TABLE "raw_responses" ALTER COLUMN "rows_seen" SET DATA TYPE json USING "rows_seen"::json;
--> statement-breakpoint
ALTER TABLE "run_records" ALTER COLUMN "created_at" SET DATA TYPE timestamp with time zone USING pg_temp.scrape_etl_instant("created_at");
--> statement-breakpoint
ALTER TABLE "run_records" ALTER COLUMN "updated_at" SET DATA TYPE timestamp with time zone USING pg_temp.scrape_etl_instant("updated_at");
--> statement-breakpoint
ALTER TABLE "run_records" ALTER COLUMN "scraper" SET DATA TYPE json USING "scraper"::json;
--> statement-breakpoint
ALTER TABLE "scraper_results" ALTER COLUMN "created_at" SET DATA TYPE timestamp with time zone USING pg_temp.scrape_etl_instant("created_at");
--> statement-breakpoint
ALTER TABLE "scraper_results" ALTER COLUMN "updated_at" SET DATA TYPE timestamp with time zone USING pg_temp.scrape_etl_instant("updated_at");
--> statement-breakpoint
ALTER TABLE "scraper_results" ALTER COLUMN "extra" SET DATA TYPE json USING "extra"::json;
--> statement-breakpoint
ALTER TABLE "scrapers" ALTER COLUMN "urls" SET DATA TYPE json USING "urls"::json;
--> statement-breakpoint
ALTER TABLE "scrapers" ALTER COLUMN "created_at" SET DATA TYPE timestamp with time zone USING pg_temp.scrape_etl_instant("created_at");
--> statement-breakpoint
ALTER TABLE "scrapers" ALTER COLUMN "updated_at" SET DATA TYPE timestamp with time zone USING pg_temp.scrape_etl_instant("updated_at");
--> statement-breakpoint
ALTER TABLE "scraping_runs" ALTER COLUMN "created_at" SET DATA TYPE timestamp with time zone USING pg_temp.scrape_etl_instant("created_at");
--> statement-breakpoint
ALTER TABLE "url_lists" ALTER COLUMN "urls" SET DATA TYPE json USING "urls"::json;
--> statement-breakpoint
ALTER TABLE "watch_events" ALTER COLUMN "rows" SET DATA TYPE json USING "rows"::json;
--> statement-breakpoint
ALTER TABLE "job_records" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "leads_results" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "marketplace_model_stocks" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "marketplace_product_attributes" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "marketplace_product_categories" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "marketplace_product_images" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "marketplace_product_models" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "marketplace_product_tier_variation_options" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "marketplace_product_tier_variations" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "marketplace_products" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "marketplace_shops" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "pdf_results" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "run_records" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "scraper_results" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "scrapers" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "scraping_runs" ADD COLUMN "last_seen_at" timestamp with time zone;
--> statement-breakpoint
-- Inferred content tables (schema_history): their JSON columns, and the result's created_at of each root table.
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT h.table_name, h.column_name
    FROM schema_history h
    JOIN information_schema.columns c
      ON c.table_schema = current_schema() AND c.table_name = h.table_name AND c.column_name = h.column_name
    WHERE h.data_type = 'json' AND c.data_type = 'text'
  LOOP
    EXECUTE format('ALTER TABLE %I ALTER COLUMN %I SET DATA TYPE json USING %I::json', r.table_name, r.column_name, r.column_name);
  END LOOP;
  FOR r IN
    SELECT h.table_name, h.column_name
    FROM schema_history h
    JOIN information_schema.columns c
      ON c.table_schema = current_schema() AND c.table_name = h.table_name AND c.column_name = h.column_name
    WHERE h.column_name = 'result_created_at' AND h.change = 'create_table' AND c.data_type = 'text'
  LOOP
    EXECUTE format('ALTER TABLE %I ALTER COLUMN %I SET DATA TYPE timestamp with time zone USING pg_temp.scrape_etl_instant(%I)', r.table_name, r.column_name, r.column_name);
  END LOOP;
  UPDATE schema_history SET data_type = 'timestamp'
  WHERE column_name = 'result_created_at' AND change = 'create_table' AND data_type = 'text';
END
$$;
--> statement-breakpoint
DROP FUNCTION pg_temp.scrape_etl_instant(text);
--> statement-breakpoint
CREATE VIEW pipeline_freshness AS
SELECT pipeline, max(finished_at) AS last_seen_at, count(*) AS loaded_runs
FROM pipeline_runs
WHERE status IN ('succeeded', 'partial', 'failed_checks') AND finished_at IS NOT NULL
GROUP BY pipeline;
--> statement-breakpoint
CREATE VIEW results_landed AS
SELECT 'pdf_results' AS result_table, pipeline, id, scraping_run_id, scraper_name, status, created_at, false AS is_copy FROM pdf_results
UNION ALL
SELECT 'leads_results' AS result_table, pipeline, id, scraping_run_id, scraper_name, status, created_at, false AS is_copy FROM leads_results
UNION ALL
SELECT 'scraper_results' AS result_table, s.pipeline, s.id, s.scraping_run_id, s.scraper_name, s.status, s.created_at,
  (EXISTS (SELECT 1 FROM pdf_results p WHERE p.id = s.id) OR EXISTS (SELECT 1 FROM leads_results l WHERE l.id = s.id)) AS is_copy
FROM scraper_results s;
--> statement-breakpoint
COMMENT ON TABLE "pipeline_runs" IS 'One row per run (Temporal workflow execution) of a pipeline, idempotent on workflow_id: what it loaded, how it ended, what it cost.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."id" IS 'Generated row id.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."workflow_id" IS 'The Temporal workflow id of the run (unique).';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."pipeline" IS 'The pipeline that ran.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."kind" IS 'The pipeline''s kind (pdf, leads-search-engine, leads-social, job-board, marketplace, results) or the `scrape-etl load` input kind.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."status" IS 'The run''s state, from lib/run-states.ts: running, succeeded, partial, failed_checks, failed, cancelled, interrupted, did_not_run (docs/warehouse.md says what each means).';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."started_at" IS 'When the run started (UTC).';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."finished_at" IS 'When the run ended (UTC); NULL while it runs.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."rows_by_table" IS 'Rows the run wrote, by table, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."error" IS 'Why the run failed, or the URLs that failed for good in a partial run.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."export_status" IS 'The exports'' own outcome: succeeded, no_new_rows, failed (no_new_rows: an incremental export found nothing new); NULL when the pipeline has no exports. A failed export leaves `status` (the data''s) as it is.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."export_error" IS 'Why the exports failed.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."scheduled_at" IS 'For a run a schedule started: the time it was scheduled for (UTC).';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."token_usage" IS 'Sum of the service''s `tokenUsage` over the run''s responses: the run''s cost; NULL when no answer reported one.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."alert_status" IS 'The run''s alerts once their deliveries ended: ''delivered'' or ''failed''; NULL when there was nothing to send.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."alert_error" IS 'Which alerts were not delivered, and why.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."seen_by_table" IS 'Rows the run''s responses held (fetched), by table, changed or not, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it. NULL for runs finished before it was recorded.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_runs"."status_reason" IS 'Why the run ended as it did when its status alone does not say: ''budget'' (a budget limit stopped its calls, docs/budgets.md); NULL otherwise.';
--> statement-breakpoint
COMMENT ON TABLE "raw_responses" IS 'Every data-carrying response of the service, exactly as received; its id is the load_id of the rows it produced.';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."id" IS 'Generated id: the load id of the rows this response wrote.';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."pipeline" IS 'The pipeline whose run received it.';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."kind" IS 'What the body is (marketplace, job-board, create-run, scraping-run, results).';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."endpoint" IS 'The service endpoint called (METHOD /path).';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."request_key" IS 'What was asked for: the URL of a synchronous call, the scraping run id, the page of a results list.';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."workflow_id" IS 'The run (pipeline_runs.workflow_id); NULL for `scrape-etl load`.';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."scraping_run_id" IS 'The scraping run the body belongs to, when there is one.';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."received_at" IS 'When the body arrived (UTC).';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."loaded_at" IS 'When it was landed (UTC).';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."body_sha256" IS 'SHA-256 of the body.';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."body_bytes" IS 'Size of the body in bytes.';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."body" IS 'The body as received; '''' when body_ref names the earlier row holding the same bytes.';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."body_ref" IS 'An identical body is stored once: the id of the row that holds it.';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."token_usage" IS 'The `tokenUsage` the service reported for this call (job-board answers carry it), else NULL.';
--> statement-breakpoint
COMMENT ON COLUMN "raw_responses"."rows_seen" IS 'Rows this response held, by table (changed or not), as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it. NULL before it was recorded.';
--> statement-breakpoint
COMMENT ON TABLE "scrapers" IS 'The scrapers a create-and-run call created at the service (pdf and leads pipelines), as its answer described them.';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."id" IS 'The service''s scraper id.';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."name" IS 'The scraper''s name at the service.';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."type" IS 'The scraper type (pdf, leads generator, …).';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."urls" IS 'The scraper''s URLs or keywords, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."scheduled" IS 'Whether the service runs the scraper on its own schedule.';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."schedule" IS 'The service''s schedule text, if any.';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."schedule_explanation" IS 'The service''s explanation of its schedule.';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."created_at" IS 'When the service created the scraper. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."updated_at" IS 'When the service last updated the scraper. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "scrapers"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "scraping_runs" IS 'The scraping runs a create-and-run started, as their detail read when loading their results (only a run that succeeded is loaded).';
--> statement-breakpoint
COMMENT ON COLUMN "scraping_runs"."id" IS 'The service''s scraping run id.';
--> statement-breakpoint
COMMENT ON COLUMN "scraping_runs"."scraper_id" IS 'The scraper it ran (scrapers.id).';
--> statement-breakpoint
COMMENT ON COLUMN "scraping_runs"."status" IS 'The run''s status at the service when its results were loaded: ''succeeded'' (a run ending otherwise fails the pipeline run and lands nothing).';
--> statement-breakpoint
COMMENT ON COLUMN "scraping_runs"."created_at" IS 'When the service created the run. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).';
--> statement-breakpoint
COMMENT ON COLUMN "scraping_runs"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "scraping_runs"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "scraping_runs"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "scraping_runs"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "scraping_runs"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "run_records" IS 'The run records of a create-and-run answer: one per URL or keyword queued, AS QUEUED. They are not updated later: a run''s outcome is scraping_runs.status (join on pipeline, scraping_run_id).';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."id" IS 'The service''s run record id.';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."scraping_run_id" IS 'The scraping run the record queued (scraping_runs.id).';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."user_id" IS 'The account that created it.';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."scraper_id" IS 'The scraper (scrapers.id).';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."scraper_name" IS 'The scraper''s name at the service.';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."scrapped_url" IS 'The URL or keyword text as the service spells this field (misspelled in the service''s contract); ''Default'' for leads scrapers.';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."scraped_url" IS 'The URL or keyword text; ''Default'' for leads scrapers.';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."status" IS 'The record''s status in the create-and-run answer: always ''running'' (queued). It records the queueing, not the outcome: see scraping_runs.status.';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."created_at" IS 'When the service created the record. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."updated_at" IS 'When the service last updated the record. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."scraper" IS 'The full-form scraper nested in the record (pdf scrapers), as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "run_records"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "job_records" IS 'Records of job-board pipelines: one per job, the six typed properties of the pipeline''s schema (others as added columns).';
--> statement-breakpoint
COMMENT ON COLUMN "job_records"."job_key" IS 'The job''s key: job_url when non-empty, else `sha256:` + the hash of the record with sorted keys.';
--> statement-breakpoint
COMMENT ON COLUMN "job_records"."job_title" IS 'Job title.';
--> statement-breakpoint
COMMENT ON COLUMN "job_records"."job_url" IS 'Link to the job posting.';
--> statement-breakpoint
COMMENT ON COLUMN "job_records"."job_location" IS 'Location as the page states it.';
--> statement-breakpoint
COMMENT ON COLUMN "job_records"."job_salary_number" IS 'Salary as a number, when the page gave one.';
--> statement-breakpoint
COMMENT ON COLUMN "job_records"."job_salary_text" IS 'Salary as text, when the page gave text.';
--> statement-breakpoint
COMMENT ON COLUMN "job_records"."job_type" IS 'Type of position (full-time, contract, …).';
--> statement-breakpoint
COMMENT ON COLUMN "job_records"."job_currency" IS 'Currency of the salary.';
--> statement-breakpoint
COMMENT ON COLUMN "job_records"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "job_records"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "job_records"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "job_records"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "job_records"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "scraper_results" IS 'Result records of the `results` sync (every result of the account) and of kinds without a table of their own. The sync lands results a pdf or leads pipeline may already hold in pdf_results / leads_results (same id): see results_landed for a union that counts each once.';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."id" IS 'The service''s result id (64-bit). The same result may be in pdf_results or leads_results under another pipeline.';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."scraper_id" IS 'The scraper that produced the result (scrapers.id).';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."scraping_run_id" IS 'The scraping run that produced the result (scraping_runs.id).';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."scraper_name" IS 'The scraper''s name at the service (a pipeline''s `request.name`, by default the pipeline''s name).';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."scraped_url" IS 'The URL (or keyword text) the result is for.';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."status" IS 'The result''s status as the service reported it (''succeeded'' observed).';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."content_type" IS 'What `content` held: ''object'', ''array'', ''json-string'' (a string holding JSON, flattened as JSON), ''string'' (plain text), ''number'', ''boolean'' or ''null''.';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."content" IS 'The extracted data as received, in a text column (plain text for content_type ''string'' is not JSON): otherwise JSON text; cast to json / JSON to query. Flattened into <pipeline>_items.';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."created_at" IS 'When the service created the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."updated_at" IS 'When the service last updated the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."extra" IS 'Fields of the result record beyond the typed ones, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it. NULL when there were none.';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "scraper_results"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "pdf_results" IS 'Result records of pdf pipelines.';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."id" IS 'The service''s result id (64-bit).';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."scraper_id" IS 'The scraper that produced the result (scrapers.id).';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."scraping_run_id" IS 'The scraping run that produced the result (scraping_runs.id).';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."scraper_name" IS 'The scraper''s name at the service (a pipeline''s `request.name`, by default the pipeline''s name).';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."scraped_url" IS 'The URL (or keyword text) the result is for.';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."status" IS 'The result''s status as the service reported it (''succeeded'' observed).';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."content_type" IS 'What `content` held: ''object'', ''array'', ''json-string'' (a string holding JSON, flattened as JSON), ''string'' (plain text), ''number'', ''boolean'' or ''null''.';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."content" IS 'The extracted data as received, in a text column (plain text for content_type ''string'' is not JSON): otherwise JSON text; cast to json / JSON to query. Flattened into <pipeline>_items.';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."created_at" IS 'When the service created the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."updated_at" IS 'When the service last updated the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."extra" IS 'Fields of the result record beyond the typed ones, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it. NULL when there were none.';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "pdf_results"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "leads_results" IS 'Result records of leads pipelines (leads-search-engine, leads-social); their content is flattened into <pipeline>_items.';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."id" IS 'The service''s result id (64-bit).';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."scraper_id" IS 'The scraper that produced the result (scrapers.id).';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."scraping_run_id" IS 'The scraping run that produced the result (scraping_runs.id).';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."scraper_name" IS 'The scraper''s name at the service (a pipeline''s `request.name`, by default the pipeline''s name).';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."scraped_url" IS 'The URL (or keyword text) the result is for.';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."status" IS 'The result''s status as the service reported it (''succeeded'' observed).';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."content_type" IS 'What `content` held: ''object'', ''array'', ''json-string'' (a string holding JSON, flattened as JSON), ''string'' (plain text), ''number'', ''boolean'' or ''null''.';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."content" IS 'The extracted data as received, in a text column (plain text for content_type ''string'' is not JSON): otherwise JSON text; cast to json / JSON to query. Flattened into <pipeline>_items.';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."created_at" IS 'When the service created the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."updated_at" IS 'When the service last updated the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."extra" IS 'Fields of the result record beyond the typed ones, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it. NULL when there were none.';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "leads_results"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "marketplace_products" IS 'One row per product of marketplace pipelines (the newest answer wins); prices in minor units and in major units (*_major).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."shop_id" IS 'The shop (marketplace_shops.shop_id; `shopid` in the API).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."item_id" IS 'The product (the `itemid` of its URL).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."item_status" IS 'The product''s status text (''normal'' observed).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."status" IS 'The product''s status code as the service sends it.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."item_type" IS 'Product type code.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."reference_item_id" IS 'Reference item id (text).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."title" IS 'Product title.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."image" IS 'Main image key.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."brand" IS 'Brand name.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."brand_id" IS 'Brand id.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."cat_id" IS 'Category id.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."condition" IS 'Condition code.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."flag" IS 'Flag bits as sent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."currency" IS 'Currency code of the prices (TWD, …).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."description" IS 'Product description text.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."shop_location" IS 'The shop''s location text.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."ctime" IS 'Creation time of the listing, epoch seconds (see ctime_at).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."price" IS 'Current price. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."price_min" IS 'Lowest model price. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."price_max" IS 'Highest model price. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."price_before_discount" IS 'Price before discount (0: no discount). Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."price_min_before_discount" IS 'Lowest model price before discount. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."price_max_before_discount" IS 'Highest model price before discount. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."price_divisor" IS 'The pipeline''s divisor from minor to major units (`price_divisor:`, default 100000).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."price_major" IS 'price / price_divisor: the price in the currency''s units; NULL when price is -1 or absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."price_min_major" IS 'price_min / price_divisor; NULL when absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."price_max_major" IS 'price_max / price_divisor; NULL when absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."price_before_discount_major" IS 'price_before_discount / price_divisor; NULL when absent or 0 (no discount).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."show_discount" IS 'Discount shown, in percent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."raw_discount" IS 'Discount as sent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."rating_star" IS 'Average rating (0-5).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."rating_count" IS 'Ratings per star (the API''s list, total first), as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."total_rating_count" IS 'Number of ratings.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."cmt_count" IS 'Number of comments.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."liked_count" IS 'Number of likes.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."historical_sold" IS 'Units sold, all time.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."global_sold" IS 'Units sold across regions.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."stock" IS 'Units in stock.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."normal_stock" IS 'Units in normal (non-promotion) stock.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."discount_stock" IS 'Units in promotion stock.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."estimated_days" IS 'Estimated shipping days.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."min_purchase_limit" IS 'Minimum units per purchase.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."max_quantity" IS 'Maximum units per purchase.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."is_adult" IS 'Adult product.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."is_preview" IS 'Preview listing.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."is_unavailable" IS 'Not available now.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."is_pre_order" IS 'Pre-order product.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."is_free_shipping" IS 'Free shipping.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."is_hide_stock" IS 'Stock hidden from buyers.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."item_has_video" IS 'The listing has a video.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."can_use_wholesale" IS 'Wholesale prices apply.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."label_ids" IS 'Label ids, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."ctime_at" IS 'ctime as a timestamp (UTC): the same instant, queryable as a date.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_products"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "marketplace_product_models" IS 'A product''s models (variants: size, colour, …), replaced as a set by each answer: a model that vanished is deleted (its price history stays).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."shop_id" IS 'The shop (marketplace_shops.shop_id; `shopid` in the API).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."item_id" IS 'The product (the `itemid` of its URL).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."model_id" IS 'The model id.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."list_index" IS 'Position in the answer''s model list.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."name" IS 'Model name (e.g. "Red,XL").';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."status" IS 'Model status code.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."price" IS 'Current model price. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."price_before_discount" IS 'Model price before discount (0: no discount). Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."price_major" IS 'price / the product''s price_divisor; NULL when absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."price_before_discount_major" IS 'price_before_discount / price_divisor; NULL when absent or 0.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."promotion_id" IS 'Promotion the price belongs to.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."stock" IS 'Units in stock.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."normal_stock" IS 'Units in normal stock.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."sold" IS 'Units sold.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."current_promotion_reserved_stock" IS 'Units reserved for the current promotion.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."tier_index" IS 'Index of the model''s option in each tier variation, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."is_pre_order" IS 'Pre-order model.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."estimated_days" IS 'Estimated shipping days.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."has_gimmick_tag" IS 'Gimmick tag shown.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_models"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "marketplace_model_stocks" IS 'A model''s stock by price-stock entry and location (price_stocks × stock_breakdown_by_location); location_index -1 is a price-stock entry without locations.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."shop_id" IS 'The shop (marketplace_shops.shop_id; `shopid` in the API).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."item_id" IS 'The product (the `itemid` of its URL).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."model_id" IS 'The model (marketplace_product_models.model_id).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."price_stock_index" IS 'Position in the model''s price_stocks list.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."location_index" IS 'Position in its stock_breakdown_by_location list; -1 for an entry without locations.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."allocated_stock" IS 'The price-stock entry''s allocated units.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."promotion_type" IS 'Promotion type code of the entry.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."location_id" IS 'Warehouse location id.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."available_stock" IS 'Units available at the location.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."fulfilment_type" IS 'Fulfilment type code.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."address_id" IS 'Warehouse address id.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."location_allocated_stock" IS 'Units allocated at the location.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_model_stocks"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "marketplace_product_attributes" IS 'A product''s attributes from both lists the answer carries, told apart by `source`.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."shop_id" IS 'The shop (marketplace_shops.shop_id; `shopid` in the API).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."item_id" IS 'The product (the `itemid` of its URL).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."source" IS 'Which list: ''item.attributes'' or ''product_attributes.attrs''.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."list_index" IS 'Position in that list.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."name" IS 'Attribute name.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."value" IS 'Attribute value.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."attribute_id" IS 'Attribute id.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."val_id" IS 'Value id.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."is_timestamp" IS 'The value is an epoch time.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."brand_id" IS 'Brand id (brand attributes).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."brand_option" IS 'Brand option, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."url" IS 'Link of the attribute value.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."full_url" IS 'Absolute link of the attribute value.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."type" IS 'Attribute type code.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_attributes"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "marketplace_product_categories" IS 'A product''s categories from the three lists the answer carries, told apart by `source`.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_categories"."shop_id" IS 'The shop (marketplace_shops.shop_id; `shopid` in the API).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_categories"."item_id" IS 'The product (the `itemid` of its URL).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_categories"."source" IS 'Which list: ''item.categories'', ''item.fe_categories'' or ''product_attributes.categories''.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_categories"."list_index" IS 'Position in that list (the category path, top first).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_categories"."catid" IS 'Category id.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_categories"."display_name" IS 'Category name.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_categories"."no_sub" IS 'The category has no subcategories.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_categories"."is_default_subcat" IS 'Default subcategory.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_categories"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_categories"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_categories"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_categories"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_categories"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "marketplace_product_tier_variations" IS 'A product''s tier variations (e.g. colour, size): one row per tier, its options in marketplace_product_tier_variation_options.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variations"."shop_id" IS 'The shop (marketplace_shops.shop_id; `shopid` in the API).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variations"."item_id" IS 'The product (the `itemid` of its URL).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variations"."tier_index" IS 'Position of the tier.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variations"."name" IS 'Tier name (e.g. "Colour").';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variations"."type" IS 'Tier type code.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variations"."option_count" IS 'Number of options.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variations"."images" IS 'Image keys per option, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variations"."properties" IS 'Tier properties, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variations"."summed_stocks" IS 'Stock per option, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variations"."display_indicators" IS 'Display indicators, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variations"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variations"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variations"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variations"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variations"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "marketplace_product_tier_variation_options" IS 'The options of a tier variation, one row each.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variation_options"."shop_id" IS 'The shop (marketplace_shops.shop_id; `shopid` in the API).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variation_options"."item_id" IS 'The product (the `itemid` of its URL).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variation_options"."tier_index" IS 'The tier (marketplace_product_tier_variations.tier_index).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variation_options"."option_index" IS 'Position of the option in the tier.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variation_options"."option" IS 'Option text (e.g. "Red").';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variation_options"."image" IS 'The option''s image key.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variation_options"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variation_options"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variation_options"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variation_options"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_tier_variation_options"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "marketplace_product_images" IS 'A product''s images, in order.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_images"."shop_id" IS 'The shop (marketplace_shops.shop_id; `shopid` in the API).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_images"."item_id" IS 'The product (the `itemid` of its URL).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_images"."list_index" IS 'Position of the image.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_images"."image" IS 'Image key.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_images"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_images"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_images"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_images"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_product_images"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "marketplace_shops" IS 'One row per shop seen in marketplace answers (the newest answer wins).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."shop_id" IS 'The shop id (`shopid` in the API).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."userid" IS 'The shop owner''s user id.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."name" IS 'Shop name.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."username" IS 'The owner''s username.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."place" IS 'Place text.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."shop_location" IS 'Location text.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."last_active_time" IS 'Last activity, epoch seconds (see last_active_time_at).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."ctime" IS 'Shop creation, epoch seconds (see ctime_at).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."vacation" IS 'The shop is on vacation.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."status" IS 'Shop status code.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."is_shopee_verified" IS 'Verified shop.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."is_preferred_plus_seller" IS 'Preferred-plus seller.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."is_official_shop" IS 'Official shop.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."is_individual_seller" IS 'Individual seller.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."is_mart" IS 'Mart shop.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."item_count" IS 'Number of products.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."rating_star" IS 'Average rating (0-5).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."rating_bad" IS 'Number of bad ratings.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."rating_good" IS 'Number of good ratings.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."rating_normal" IS 'Number of normal ratings.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."response_rate" IS 'Chat response rate, percent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."response_time" IS 'Chat response time, seconds.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."follower_count" IS 'Followers.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."sold_total" IS 'Units sold, all time.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."last_active_time_at" IS 'last_active_time as a timestamp (UTC).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."ctime_at" IS 'ctime as a timestamp (UTC).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_shops"."last_seen_at" IS 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.';
--> statement-breakpoint
COMMENT ON TABLE "marketplace_price_history" IS 'Append-only: a row whenever a product''s price (model_id NULL) or a model''s price differs from the previous load, the first load included. The current price is the row with the highest id per (pipeline, shop_id, item_id, model_id).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."id" IS 'Generated id, increasing in load order.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."shop_id" IS 'The shop (marketplace_shops.shop_id; `shopid` in the API).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."item_id" IS 'The product (the `itemid` of its URL).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."model_id" IS 'The model whose price changed; NULL for the product''s own price.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."price" IS 'The new price. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."price_min" IS 'The new lowest model price (product rows). Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."price_max" IS 'The new highest model price (product rows). Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."price_before_discount" IS 'The new price before discount. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."price_major" IS 'The new price in major units (price / price_divisor).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."previous_price" IS 'The price before this change; NULL for the first price seen. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."currency" IS 'Currency code.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."pipeline" IS 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."load_id" IS 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."loaded_at" IS 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."row_hash" IS 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."workflow_id" IS 'The run whose load found the change (pipeline_runs.workflow_id); NULL on rows older than the column.';
--> statement-breakpoint
COMMENT ON COLUMN "marketplace_price_history"."previous_price_major" IS 'previous_price in major units; NULL for the first price and on rows older than the column.';
--> statement-breakpoint
COMMENT ON TABLE "schema_history" IS 'Every table and column the loader created at run time (inferred <pipeline>_items tables and columns added to model tables): the change history, and the registry mapping a content key to its column.';
--> statement-breakpoint
COMMENT ON COLUMN "schema_history"."table_name" IS 'The table.';
--> statement-breakpoint
COMMENT ON COLUMN "schema_history"."column_name" IS 'The column.';
--> statement-breakpoint
COMMENT ON COLUMN "schema_history"."data_type" IS 'Logical type: bigint, double, bool, text, timestamp, json or number_text (a number no SQL type holds exactly, as text).';
--> statement-breakpoint
COMMENT ON COLUMN "schema_history"."change" IS '''create_table'' (the columns a new table starts with), ''add_column'' (a new field) or ''add_variant'' (a value that did not fit the column''s type).';
--> statement-breakpoint
COMMENT ON COLUMN "schema_history"."variant_of" IS 'For a variant column: the column whose type the values did not fit.';
--> statement-breakpoint
COMMENT ON COLUMN "schema_history"."pipeline" IS 'The pipeline whose load made the change.';
--> statement-breakpoint
COMMENT ON COLUMN "schema_history"."load_id" IS 'The load that made it (raw_responses.id).';
--> statement-breakpoint
COMMENT ON COLUMN "schema_history"."changed_at" IS 'When (UTC).';
--> statement-breakpoint
COMMENT ON COLUMN "schema_history"."source_key" IS 'The original key path the column holds (JSON array), or a table''s list path.';
--> statement-breakpoint
COMMENT ON COLUMN "schema_history"."root_table" IS 'The content root table (<pipeline>_items) a content table belongs to; NULL for model tables.';
--> statement-breakpoint
COMMENT ON TABLE "rejected_results" IS 'Results a load could not write (nested too deep, merge key missing, over a limit): the rest of their response loaded and the run ended partial. The result itself is in raw_responses.';
--> statement-breakpoint
COMMENT ON COLUMN "rejected_results"."id" IS 'Generated id.';
--> statement-breakpoint
COMMENT ON COLUMN "rejected_results"."pipeline" IS 'The pipeline.';
--> statement-breakpoint
COMMENT ON COLUMN "rejected_results"."load_id" IS 'The response that carried the result (raw_responses.id).';
--> statement-breakpoint
COMMENT ON COLUMN "rejected_results"."workflow_id" IS 'The run.';
--> statement-breakpoint
COMMENT ON COLUMN "rejected_results"."result_id" IS 'The result id (decimal text: 64-bit).';
--> statement-breakpoint
COMMENT ON COLUMN "rejected_results"."scraping_run_id" IS 'Its scraping run (decimal text).';
--> statement-breakpoint
COMMENT ON COLUMN "rejected_results"."table_name" IS 'The table it was meant for.';
--> statement-breakpoint
COMMENT ON COLUMN "rejected_results"."reason" IS 'Why it was rejected.';
--> statement-breakpoint
COMMENT ON COLUMN "rejected_results"."rejected_at" IS 'When (UTC).';
--> statement-breakpoint
COMMENT ON TABLE "export_watermarks" IS 'The highest load id each pipeline exported per table: an incremental export takes the rows above it.';
--> statement-breakpoint
COMMENT ON COLUMN "export_watermarks"."pipeline" IS 'The pipeline.';
--> statement-breakpoint
COMMENT ON COLUMN "export_watermarks"."table_name" IS 'The table exported.';
--> statement-breakpoint
COMMENT ON COLUMN "export_watermarks"."last_load_id" IS 'The highest load id exported.';
--> statement-breakpoint
COMMENT ON COLUMN "export_watermarks"."exported_at" IS 'When (UTC).';
--> statement-breakpoint
COMMENT ON COLUMN "export_watermarks"."last_run" IS 'The run that moved the watermark last.';
--> statement-breakpoint
COMMENT ON COLUMN "export_watermarks"."last_file" IS 'The file it wrote.';
--> statement-breakpoint
COMMENT ON COLUMN "export_watermarks"."last_rows" IS 'Rows in that file.';
--> statement-breakpoint
COMMENT ON TABLE "sync_watermarks" IS 'Where each incremental `results` sync resumes: the highest result id of its last complete pass.';
--> statement-breakpoint
COMMENT ON COLUMN "sync_watermarks"."pipeline" IS 'The pipeline.';
--> statement-breakpoint
COMMENT ON COLUMN "sync_watermarks"."stream" IS 'The stream synced.';
--> statement-breakpoint
COMMENT ON COLUMN "sync_watermarks"."watermark" IS 'The highest result id of the last complete pass (decimal text).';
--> statement-breakpoint
COMMENT ON COLUMN "sync_watermarks"."updated_at" IS 'When it moved (UTC).';
--> statement-breakpoint
COMMENT ON TABLE "notify_deliveries" IS 'Webhook deliveries the receiver accepted (2xx), one per run, event and webhook, so a retried alert is not sent twice.';
--> statement-breakpoint
COMMENT ON COLUMN "notify_deliveries"."workflow_id" IS 'The run.';
--> statement-breakpoint
COMMENT ON COLUMN "notify_deliveries"."run_id" IS 'First run id of the workflow execution chain.';
--> statement-breakpoint
COMMENT ON COLUMN "notify_deliveries"."event" IS 'The alert event (succeeded, failed, partial, price_drop, …).';
--> statement-breakpoint
COMMENT ON COLUMN "notify_deliveries"."target" IS 'Hash of the webhook''s URL template and format (never the URL, which may hold a secret).';
--> statement-breakpoint
COMMENT ON COLUMN "notify_deliveries"."http_status" IS 'The receiver''s HTTP status.';
--> statement-breakpoint
COMMENT ON COLUMN "notify_deliveries"."sent_at" IS 'When (UTC).';
--> statement-breakpoint
COMMENT ON TABLE "check_results" IS 'The outcome of every data check (`checks:`) per run, or per `scrape-etl check` / freshness evaluation.';
--> statement-breakpoint
COMMENT ON COLUMN "check_results"."id" IS 'Generated id.';
--> statement-breakpoint
COMMENT ON COLUMN "check_results"."pipeline" IS 'The pipeline.';
--> statement-breakpoint
COMMENT ON COLUMN "check_results"."workflow_id" IS 'The run, or check:<time> / freshness:<time> for evaluations without a run.';
--> statement-breakpoint
COMMENT ON COLUMN "check_results"."check_name" IS 'The check''s name.';
--> statement-breakpoint
COMMENT ON COLUMN "check_results"."check_type" IS 'row_count, not_null, null_rate, unique, accepted_values, range, sql, freshness or schema.';
--> statement-breakpoint
COMMENT ON COLUMN "check_results"."severity" IS '''error'' (a failure ends the run failed_checks) or ''warn'' (an alert only).';
--> statement-breakpoint
COMMENT ON COLUMN "check_results"."status" IS '''pass'', ''fail'', ''error'' (could not be evaluated) or ''skipped''.';
--> statement-breakpoint
COMMENT ON COLUMN "check_results"."observed" IS 'What was observed, as shown to people.';
--> statement-breakpoint
COMMENT ON COLUMN "check_results"."observed_value" IS 'The observed figure as a number (a rate in %, a count, an age in seconds).';
--> statement-breakpoint
COMMENT ON COLUMN "check_results"."threshold" IS 'The threshold, as shown to people.';
--> statement-breakpoint
COMMENT ON COLUMN "check_results"."failing_keys" IS 'A sample of the failing rows'' keys, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.';
--> statement-breakpoint
COMMENT ON COLUMN "check_results"."message" IS 'Explanation.';
--> statement-breakpoint
COMMENT ON COLUMN "check_results"."checked_at" IS 'When (UTC).';
--> statement-breakpoint
COMMENT ON TABLE "watch_events" IS 'The events a watch (`watch:`) found in one run, computed once.';
--> statement-breakpoint
COMMENT ON COLUMN "watch_events"."workflow_id" IS 'The run.';
--> statement-breakpoint
COMMENT ON COLUMN "watch_events"."watch" IS 'The watch.';
--> statement-breakpoint
COMMENT ON COLUMN "watch_events"."pipeline" IS 'The pipeline.';
--> statement-breakpoint
COMMENT ON COLUMN "watch_events"."event" IS 'price_drop, price_rise, back_in_stock, out_of_stock or new_rows.';
--> statement-breakpoint
COMMENT ON COLUMN "watch_events"."row_count" IS 'Rows that triggered it.';
--> statement-breakpoint
COMMENT ON COLUMN "watch_events"."rows" IS 'The triggering rows, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.';
--> statement-breakpoint
COMMENT ON COLUMN "watch_events"."created_at" IS 'When (UTC).';
--> statement-breakpoint
COMMENT ON TABLE "watch_state" IS 'What each watch last saw of each item.';
--> statement-breakpoint
COMMENT ON COLUMN "watch_state"."pipeline" IS 'The pipeline.';
--> statement-breakpoint
COMMENT ON COLUMN "watch_state"."watch" IS 'The watch.';
--> statement-breakpoint
COMMENT ON COLUMN "watch_state"."item_key" IS 'The item''s key.';
--> statement-breakpoint
COMMENT ON COLUMN "watch_state"."state" IS 'What was seen (in stock or not; present).';
--> statement-breakpoint
COMMENT ON COLUMN "watch_state"."updated_at" IS 'When (UTC).';
--> statement-breakpoint
COMMENT ON TABLE "spend_calls" IS 'Every billable call to the scraping service, recorded before it is sent, in the transaction that checks the budget''s limits (docs/budgets.md): what spend control counts.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."call_key" IS 'What makes a call unique: workflow, activity, attempt and its execution, URL or create, and client attempt.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."pipeline" IS 'The pipeline whose run made the call.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."project" IS 'The project file (its path) whose budget also counts this call; NULL outside a budgeted project.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."workflow_id" IS 'The Temporal workflow id of the run.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."endpoint" IS '`METHOD /path` of the call.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."request_key" IS 'The URL of a synchronous call, ''create-and-run'' for a create.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."creates_scraper" IS 'Whether the call creates a scraper (create-and-run).';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."called_at" IS 'When the call was recorded (UTC), just before it was sent.';
--> statement-breakpoint
COMMENT ON COLUMN "spend_calls"."tokens" IS 'The `tokenUsage` its answer reported; NULL until it arrives or when the answer reports none.';
--> statement-breakpoint
COMMENT ON TABLE "url_lists" IS 'URL lists of job-board and marketplace runs, in chunks (a list too long for a workflow input).';
--> statement-breakpoint
COMMENT ON COLUMN "url_lists"."list_id" IS 'SHA-256 of the list.';
--> statement-breakpoint
COMMENT ON COLUMN "url_lists"."chunk_index" IS 'Position of the chunk.';
--> statement-breakpoint
COMMENT ON COLUMN "url_lists"."urls" IS 'The chunk''s URLs in order, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.';
--> statement-breakpoint
COMMENT ON COLUMN "url_lists"."created_at" IS 'When stored (UTC).';
--> statement-breakpoint
COMMENT ON VIEW "pipeline_freshness" IS 'When each pipeline last loaded: one row per pipeline, moved by every run that finished its load (succeeded, partial, failed_checks) whether or not a row changed. dbt''s source freshness reads it.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_freshness"."pipeline" IS 'The pipeline.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_freshness"."last_seen_at" IS 'When its last run that finished its load ended (UTC): every row it saw was seen then.';
--> statement-breakpoint
COMMENT ON COLUMN "pipeline_freshness"."loaded_runs" IS 'How many of its runs finished their load.';
--> statement-breakpoint
COMMENT ON VIEW "results_landed" IS 'Every result record once: pdf_results, leads_results and scraper_results together, with the `results` sync''s copies of a result another pipeline landed marked `is_copy` (count `WHERE NOT is_copy`).';
--> statement-breakpoint
COMMENT ON COLUMN "results_landed"."result_table" IS 'The table the row is in.';
--> statement-breakpoint
COMMENT ON COLUMN "results_landed"."pipeline" IS 'The pipeline that landed it.';
--> statement-breakpoint
COMMENT ON COLUMN "results_landed"."id" IS 'The service''s result id.';
--> statement-breakpoint
COMMENT ON COLUMN "results_landed"."scraping_run_id" IS 'Its scraping run.';
--> statement-breakpoint
COMMENT ON COLUMN "results_landed"."scraper_name" IS 'The scraper''s name.';
--> statement-breakpoint
COMMENT ON COLUMN "results_landed"."status" IS 'The result''s status.';
--> statement-breakpoint
COMMENT ON COLUMN "results_landed"."created_at" IS 'When the service created it. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).';
--> statement-breakpoint
COMMENT ON COLUMN "results_landed"."is_copy" IS 'True for a scraper_results row whose result (same id) is also in pdf_results or leads_results.';
