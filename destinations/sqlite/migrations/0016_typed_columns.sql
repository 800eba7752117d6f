-- Columns typed for what they hold (issue 40): last_seen_at on every table with a natural key (NULL until a run
-- sees the row), the service's timestamps rewritten in the one stored form of lib/iso-timestamp.ts (SQLite keeps
-- instants as ISO 8601 UTC text; the service sends microseconds, Postgres and DuckDB keep them as timestamptz and
-- export them so), and the comments of the columns whose descriptions changed (`npx tsx
-- scripts/comment-statements.ts sqlite`, without its views, which did not change here).
ALTER TABLE `job_records` ADD `last_seen_at` text;
--> statement-breakpoint
ALTER TABLE `leads_results` ADD `last_seen_at` text;
--> statement-breakpoint
ALTER TABLE `marketplace_model_stocks` ADD `last_seen_at` text;
--> statement-breakpoint
ALTER TABLE `marketplace_product_attributes` ADD `last_seen_at` text;
--> statement-breakpoint
ALTER TABLE `marketplace_product_categories` ADD `last_seen_at` text;
--> statement-breakpoint
ALTER TABLE `marketplace_product_images` ADD `last_seen_at` text;
--> statement-breakpoint
ALTER TABLE `marketplace_product_models` ADD `last_seen_at` text;
--> statement-breakpoint
ALTER TABLE `marketplace_product_tier_variation_options` ADD `last_seen_at` text;
--> statement-breakpoint
ALTER TABLE `marketplace_product_tier_variations` ADD `last_seen_at` text;
--> statement-breakpoint
ALTER TABLE `marketplace_products` ADD `last_seen_at` text;
--> statement-breakpoint
ALTER TABLE `marketplace_shops` ADD `last_seen_at` text;
--> statement-breakpoint
ALTER TABLE `pdf_results` ADD `last_seen_at` text;
--> statement-breakpoint
ALTER TABLE `run_records` ADD `last_seen_at` text;
--> statement-breakpoint
ALTER TABLE `scraper_results` ADD `last_seen_at` text;
--> statement-breakpoint
ALTER TABLE `scrapers` ADD `last_seen_at` text;
--> statement-breakpoint
ALTER TABLE `scraping_runs` ADD `last_seen_at` text;
--> statement-breakpoint
UPDATE "scrapers" SET "created_at" = CASE WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]000Z' THEN substr("created_at", 1, 23) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9]00Z' THEN substr("created_at", 1, 24) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9][0-9]0Z' THEN substr("created_at", 1, 25) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' THEN substr("created_at", 1, 19) || '.000Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9]Z' THEN substr("created_at", 1, 21) || '00Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9]Z' THEN substr("created_at", 1, 22) || '0Z' ELSE "created_at" END, "updated_at" = CASE WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]000Z' THEN substr("updated_at", 1, 23) || 'Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9]00Z' THEN substr("updated_at", 1, 24) || 'Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9][0-9]0Z' THEN substr("updated_at", 1, 25) || 'Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' THEN substr("updated_at", 1, 19) || '.000Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9]Z' THEN substr("updated_at", 1, 21) || '00Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9]Z' THEN substr("updated_at", 1, 22) || '0Z' ELSE "updated_at" END;
--> statement-breakpoint
UPDATE "scraping_runs" SET "created_at" = CASE WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]000Z' THEN substr("created_at", 1, 23) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9]00Z' THEN substr("created_at", 1, 24) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9][0-9]0Z' THEN substr("created_at", 1, 25) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' THEN substr("created_at", 1, 19) || '.000Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9]Z' THEN substr("created_at", 1, 21) || '00Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9]Z' THEN substr("created_at", 1, 22) || '0Z' ELSE "created_at" END;
--> statement-breakpoint
UPDATE "run_records" SET "created_at" = CASE WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]000Z' THEN substr("created_at", 1, 23) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9]00Z' THEN substr("created_at", 1, 24) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9][0-9]0Z' THEN substr("created_at", 1, 25) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' THEN substr("created_at", 1, 19) || '.000Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9]Z' THEN substr("created_at", 1, 21) || '00Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9]Z' THEN substr("created_at", 1, 22) || '0Z' ELSE "created_at" END, "updated_at" = CASE WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]000Z' THEN substr("updated_at", 1, 23) || 'Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9]00Z' THEN substr("updated_at", 1, 24) || 'Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9][0-9]0Z' THEN substr("updated_at", 1, 25) || 'Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' THEN substr("updated_at", 1, 19) || '.000Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9]Z' THEN substr("updated_at", 1, 21) || '00Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9]Z' THEN substr("updated_at", 1, 22) || '0Z' ELSE "updated_at" END;
--> statement-breakpoint
UPDATE "scraper_results" SET "created_at" = CASE WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]000Z' THEN substr("created_at", 1, 23) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9]00Z' THEN substr("created_at", 1, 24) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9][0-9]0Z' THEN substr("created_at", 1, 25) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' THEN substr("created_at", 1, 19) || '.000Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9]Z' THEN substr("created_at", 1, 21) || '00Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9]Z' THEN substr("created_at", 1, 22) || '0Z' ELSE "created_at" END, "updated_at" = CASE WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]000Z' THEN substr("updated_at", 1, 23) || 'Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9]00Z' THEN substr("updated_at", 1, 24) || 'Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9][0-9]0Z' THEN substr("updated_at", 1, 25) || 'Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' THEN substr("updated_at", 1, 19) || '.000Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9]Z' THEN substr("updated_at", 1, 21) || '00Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9]Z' THEN substr("updated_at", 1, 22) || '0Z' ELSE "updated_at" END;
--> statement-breakpoint
UPDATE "pdf_results" SET "created_at" = CASE WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]000Z' THEN substr("created_at", 1, 23) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9]00Z' THEN substr("created_at", 1, 24) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9][0-9]0Z' THEN substr("created_at", 1, 25) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' THEN substr("created_at", 1, 19) || '.000Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9]Z' THEN substr("created_at", 1, 21) || '00Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9]Z' THEN substr("created_at", 1, 22) || '0Z' ELSE "created_at" END, "updated_at" = CASE WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]000Z' THEN substr("updated_at", 1, 23) || 'Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9]00Z' THEN substr("updated_at", 1, 24) || 'Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9][0-9]0Z' THEN substr("updated_at", 1, 25) || 'Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' THEN substr("updated_at", 1, 19) || '.000Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9]Z' THEN substr("updated_at", 1, 21) || '00Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9]Z' THEN substr("updated_at", 1, 22) || '0Z' ELSE "updated_at" END;
--> statement-breakpoint
UPDATE "leads_results" SET "created_at" = CASE WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]000Z' THEN substr("created_at", 1, 23) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9]00Z' THEN substr("created_at", 1, 24) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9][0-9]0Z' THEN substr("created_at", 1, 25) || 'Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' THEN substr("created_at", 1, 19) || '.000Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9]Z' THEN substr("created_at", 1, 21) || '00Z' WHEN "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9]Z' THEN substr("created_at", 1, 22) || '0Z' ELSE "created_at" END, "updated_at" = CASE WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]000Z' THEN substr("updated_at", 1, 23) || 'Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9]00Z' THEN substr("updated_at", 1, 24) || 'Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9][0-9][0-9]0Z' THEN substr("updated_at", 1, 25) || 'Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' THEN substr("updated_at", 1, 19) || '.000Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9]Z' THEN substr("updated_at", 1, 21) || '00Z' WHEN "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9]Z' THEN substr("updated_at", 1, 22) || '0Z' ELSE "updated_at" END;
--> statement-breakpoint
UPDATE schema_history SET data_type = 'timestamp' WHERE column_name = 'result_created_at' AND change = 'create_table' AND data_type = 'text';
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "scrape_etl_comments" (table_name text NOT NULL, column_name text NOT NULL, comment text NOT NULL, PRIMARY KEY (table_name, column_name));
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', '', 'One row per run (Temporal workflow execution) of a pipeline, idempotent on workflow_id: what it loaded, how it ended, what it cost.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'id', 'Generated row id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'workflow_id', 'The Temporal workflow id of the run (unique).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'pipeline', 'The pipeline that ran.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'kind', 'The pipeline''s kind (pdf, leads-search-engine, leads-social, job-board, marketplace, results) or the `scrape-etl load` input kind.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'status', 'The run''s state, from lib/run-states.ts: running, succeeded, partial, failed_checks, failed, cancelled, interrupted, did_not_run (docs/warehouse.md says what each means).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'started_at', 'When the run started (UTC).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'finished_at', 'When the run ended (UTC); NULL while it runs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'rows_by_table', 'Rows the run wrote, by table, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'error', 'Why the run failed, or the URLs that failed for good in a partial run.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'export_status', 'The exports'' own outcome: succeeded, no_new_rows, failed (no_new_rows: an incremental export found nothing new); NULL when the pipeline has no exports. A failed export leaves `status` (the data''s) as it is.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'export_error', 'Why the exports failed.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'scheduled_at', 'For a run a schedule started: the time it was scheduled for (UTC).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'token_usage', 'Sum of the service''s `tokenUsage` over the run''s responses: the run''s cost; NULL when no answer reported one.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'alert_status', 'The run''s alerts once their deliveries ended: ''delivered'' or ''failed''; NULL when there was nothing to send.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'alert_error', 'Which alerts were not delivered, and why.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'seen_by_table', 'Rows the run''s responses held (fetched), by table, changed or not, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it. NULL for runs finished before it was recorded.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'status_reason', 'Why the run ended as it did when its status alone does not say: ''budget'' (a budget limit stopped its calls, docs/budgets.md); NULL otherwise.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', '', 'Every data-carrying response of the service, exactly as received; its id is the load_id of the rows it produced.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', 'id', 'Generated id: the load id of the rows this response wrote.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', 'pipeline', 'The pipeline whose run received it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', 'kind', 'What the body is (marketplace, job-board, create-run, scraping-run, results).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', 'endpoint', 'The service endpoint called (METHOD /path).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', 'request_key', 'What was asked for: the URL of a synchronous call, the scraping run id, the page of a results list.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', 'workflow_id', 'The run (pipeline_runs.workflow_id); NULL for `scrape-etl load`.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', 'scraping_run_id', 'The scraping run the body belongs to, when there is one.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', 'received_at', 'When the body arrived (UTC).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', 'loaded_at', 'When it was landed (UTC).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', 'body_sha256', 'SHA-256 of the body.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', 'body_bytes', 'Size of the body in bytes.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', 'body', 'The body as received; '''' when body_ref names the earlier row holding the same bytes.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', 'body_ref', 'An identical body is stored once: the id of the row that holds it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', 'token_usage', 'The `tokenUsage` the service reported for this call (job-board answers carry it), else NULL.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('raw_responses', 'rows_seen', 'Rows this response held, by table (changed or not), as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it. NULL before it was recorded.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scrapers', '', 'The scrapers a create-and-run call created at the service (pdf and leads pipelines), as its answer described them.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scrapers', 'id', 'The service''s scraper id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scrapers', 'name', 'The scraper''s name at the service.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scrapers', 'type', 'The scraper type (pdf, leads generator, …).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scrapers', 'urls', 'The scraper''s URLs or keywords, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scrapers', 'scheduled', 'Whether the service runs the scraper on its own schedule.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scrapers', 'schedule', 'The service''s schedule text, if any.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scrapers', 'schedule_explanation', 'The service''s explanation of its schedule.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scrapers', 'created_at', 'When the service created the scraper. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scrapers', 'updated_at', 'When the service last updated the scraper. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scrapers', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scrapers', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scrapers', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scrapers', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scrapers', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraping_runs', '', 'The scraping runs a create-and-run started, as their detail read when loading their results (only a run that succeeded is loaded).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraping_runs', 'id', 'The service''s scraping run id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraping_runs', 'scraper_id', 'The scraper it ran (scrapers.id).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraping_runs', 'status', 'The run''s status at the service when its results were loaded: ''succeeded'' (a run ending otherwise fails the pipeline run and lands nothing).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraping_runs', 'created_at', 'When the service created the run. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraping_runs', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraping_runs', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraping_runs', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraping_runs', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraping_runs', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', '', 'The run records of a create-and-run answer: one per URL or keyword queued, AS QUEUED. They are not updated later: a run''s outcome is scraping_runs.status (join on pipeline, scraping_run_id).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'id', 'The service''s run record id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'scraping_run_id', 'The scraping run the record queued (scraping_runs.id).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'user_id', 'The account that created it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'scraper_id', 'The scraper (scrapers.id).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'scraper_name', 'The scraper''s name at the service.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'scrapped_url', 'The URL or keyword text as the service spells this field (misspelled in the service''s contract); ''Default'' for leads scrapers.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'scraped_url', 'The URL or keyword text; ''Default'' for leads scrapers.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'status', 'The record''s status in the create-and-run answer: always ''running'' (queued). It records the queueing, not the outcome: see scraping_runs.status.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'created_at', 'When the service created the record. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'updated_at', 'When the service last updated the record. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'scraper', 'The full-form scraper nested in the record (pdf scrapers), as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('run_records', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('job_records', '', 'Records of job-board pipelines: one per job, the six typed properties of the pipeline''s schema (others as added columns).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('job_records', 'job_key', 'The job''s key: job_url when non-empty, else `sha256:` + the hash of the record with sorted keys.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('job_records', 'job_title', 'Job title.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('job_records', 'job_url', 'Link to the job posting.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('job_records', 'job_location', 'Location as the page states it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('job_records', 'job_salary_number', 'Salary as a number, when the page gave one.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('job_records', 'job_salary_text', 'Salary as text, when the page gave text.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('job_records', 'job_type', 'Type of position (full-time, contract, …).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('job_records', 'job_currency', 'Currency of the salary.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('job_records', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('job_records', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('job_records', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('job_records', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('job_records', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', '', 'Result records of the `results` sync (every result of the account) and of kinds without a table of their own. The sync lands results a pdf or leads pipeline may already hold in pdf_results / leads_results (same id): see results_landed for a union that counts each once.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'id', 'The service''s result id (64-bit). The same result may be in pdf_results or leads_results under another pipeline.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'scraper_id', 'The scraper that produced the result (scrapers.id).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'scraping_run_id', 'The scraping run that produced the result (scraping_runs.id).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'scraper_name', 'The scraper''s name at the service (a pipeline''s `request.name`, by default the pipeline''s name).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'scraped_url', 'The URL (or keyword text) the result is for.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'status', 'The result''s status as the service reported it (''succeeded'' observed).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'content_type', 'What `content` held: ''object'', ''array'', ''json-string'' (a string holding JSON, flattened as JSON), ''string'' (plain text), ''number'', ''boolean'' or ''null''.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'content', 'The extracted data as received, in a text column (plain text for content_type ''string'' is not JSON): otherwise JSON text; cast to json / JSON to query. Flattened into <pipeline>_items.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'created_at', 'When the service created the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'updated_at', 'When the service last updated the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'extra', 'Fields of the result record beyond the typed ones, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it. NULL when there were none.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('scraper_results', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', '', 'Result records of pdf pipelines.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'id', 'The service''s result id (64-bit).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'scraper_id', 'The scraper that produced the result (scrapers.id).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'scraping_run_id', 'The scraping run that produced the result (scraping_runs.id).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'scraper_name', 'The scraper''s name at the service (a pipeline''s `request.name`, by default the pipeline''s name).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'scraped_url', 'The URL (or keyword text) the result is for.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'status', 'The result''s status as the service reported it (''succeeded'' observed).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'content_type', 'What `content` held: ''object'', ''array'', ''json-string'' (a string holding JSON, flattened as JSON), ''string'' (plain text), ''number'', ''boolean'' or ''null''.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'content', 'The extracted data as received, in a text column (plain text for content_type ''string'' is not JSON): otherwise JSON text; cast to json / JSON to query. Flattened into <pipeline>_items.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'created_at', 'When the service created the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'updated_at', 'When the service last updated the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'extra', 'Fields of the result record beyond the typed ones, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it. NULL when there were none.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pdf_results', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', '', 'Result records of leads pipelines (leads-search-engine, leads-social); their content is flattened into <pipeline>_items.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'id', 'The service''s result id (64-bit).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'scraper_id', 'The scraper that produced the result (scrapers.id).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'scraping_run_id', 'The scraping run that produced the result (scraping_runs.id).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'scraper_name', 'The scraper''s name at the service (a pipeline''s `request.name`, by default the pipeline''s name).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'scraped_url', 'The URL (or keyword text) the result is for.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'status', 'The result''s status as the service reported it (''succeeded'' observed).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'content_type', 'What `content` held: ''object'', ''array'', ''json-string'' (a string holding JSON, flattened as JSON), ''string'' (plain text), ''number'', ''boolean'' or ''null''.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'content', 'The extracted data as received, in a text column (plain text for content_type ''string'' is not JSON): otherwise JSON text; cast to json / JSON to query. Flattened into <pipeline>_items.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'created_at', 'When the service created the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'updated_at', 'When the service last updated the result. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'extra', 'Fields of the result record beyond the typed ones, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it. NULL when there were none.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('leads_results', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', '', 'One row per product of marketplace pipelines (the newest answer wins); prices in minor units and in major units (*_major).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'shop_id', 'The shop (marketplace_shops.shop_id; `shopid` in the API).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'item_id', 'The product (the `itemid` of its URL).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'item_status', 'The product''s status text (''normal'' observed).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'status', 'The product''s status code as the service sends it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'item_type', 'Product type code.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'reference_item_id', 'Reference item id (text).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'title', 'Product title.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'image', 'Main image key.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'brand', 'Brand name.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'brand_id', 'Brand id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'cat_id', 'Category id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'condition', 'Condition code.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'flag', 'Flag bits as sent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'currency', 'Currency code of the prices (TWD, …).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'description', 'Product description text.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'shop_location', 'The shop''s location text.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'ctime', 'Creation time of the listing, epoch seconds (see ctime_at).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'price', 'Current price. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'price_min', 'Lowest model price. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'price_max', 'Highest model price. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'price_before_discount', 'Price before discount (0: no discount). Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'price_min_before_discount', 'Lowest model price before discount. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'price_max_before_discount', 'Highest model price before discount. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'price_divisor', 'The pipeline''s divisor from minor to major units (`price_divisor:`, default 100000).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'price_major', 'price / price_divisor: the price in the currency''s units; NULL when price is -1 or absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'price_min_major', 'price_min / price_divisor; NULL when absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'price_max_major', 'price_max / price_divisor; NULL when absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'price_before_discount_major', 'price_before_discount / price_divisor; NULL when absent or 0 (no discount).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'show_discount', 'Discount shown, in percent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'raw_discount', 'Discount as sent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'rating_star', 'Average rating (0-5).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'rating_count', 'Ratings per star (the API''s list, total first), as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'total_rating_count', 'Number of ratings.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'cmt_count', 'Number of comments.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'liked_count', 'Number of likes.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'historical_sold', 'Units sold, all time.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'global_sold', 'Units sold across regions.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'stock', 'Units in stock.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'normal_stock', 'Units in normal (non-promotion) stock.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'discount_stock', 'Units in promotion stock.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'estimated_days', 'Estimated shipping days.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'min_purchase_limit', 'Minimum units per purchase.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'max_quantity', 'Maximum units per purchase.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'is_adult', 'Adult product.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'is_preview', 'Preview listing.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'is_unavailable', 'Not available now.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'is_pre_order', 'Pre-order product.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'is_free_shipping', 'Free shipping.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'is_hide_stock', 'Stock hidden from buyers.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'item_has_video', 'The listing has a video.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'can_use_wholesale', 'Wholesale prices apply.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'label_ids', 'Label ids, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'ctime_at', 'ctime as a timestamp (UTC): the same instant, queryable as a date.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_products', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', '', 'A product''s models (variants: size, colour, …), replaced as a set by each answer: a model that vanished is deleted (its price history stays).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'shop_id', 'The shop (marketplace_shops.shop_id; `shopid` in the API).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'item_id', 'The product (the `itemid` of its URL).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'model_id', 'The model id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'list_index', 'Position in the answer''s model list.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'name', 'Model name (e.g. "Red,XL").') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'status', 'Model status code.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'price', 'Current model price. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'price_before_discount', 'Model price before discount (0: no discount). Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'price_major', 'price / the product''s price_divisor; NULL when absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'price_before_discount_major', 'price_before_discount / price_divisor; NULL when absent or 0.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'promotion_id', 'Promotion the price belongs to.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'stock', 'Units in stock.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'normal_stock', 'Units in normal stock.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'sold', 'Units sold.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'current_promotion_reserved_stock', 'Units reserved for the current promotion.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'tier_index', 'Index of the model''s option in each tier variation, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'is_pre_order', 'Pre-order model.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'estimated_days', 'Estimated shipping days.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'has_gimmick_tag', 'Gimmick tag shown.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_models', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', '', 'A model''s stock by price-stock entry and location (price_stocks × stock_breakdown_by_location); location_index -1 is a price-stock entry without locations.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'shop_id', 'The shop (marketplace_shops.shop_id; `shopid` in the API).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'item_id', 'The product (the `itemid` of its URL).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'model_id', 'The model (marketplace_product_models.model_id).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'price_stock_index', 'Position in the model''s price_stocks list.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'location_index', 'Position in its stock_breakdown_by_location list; -1 for an entry without locations.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'allocated_stock', 'The price-stock entry''s allocated units.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'promotion_type', 'Promotion type code of the entry.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'location_id', 'Warehouse location id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'available_stock', 'Units available at the location.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'fulfilment_type', 'Fulfilment type code.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'address_id', 'Warehouse address id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'location_allocated_stock', 'Units allocated at the location.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_model_stocks', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', '', 'A product''s attributes from both lists the answer carries, told apart by `source`.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'shop_id', 'The shop (marketplace_shops.shop_id; `shopid` in the API).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'item_id', 'The product (the `itemid` of its URL).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'source', 'Which list: ''item.attributes'' or ''product_attributes.attrs''.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'list_index', 'Position in that list.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'name', 'Attribute name.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'value', 'Attribute value.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'attribute_id', 'Attribute id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'val_id', 'Value id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'is_timestamp', 'The value is an epoch time.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'brand_id', 'Brand id (brand attributes).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'brand_option', 'Brand option, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'url', 'Link of the attribute value.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'full_url', 'Absolute link of the attribute value.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'type', 'Attribute type code.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_attributes', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_categories', '', 'A product''s categories from the three lists the answer carries, told apart by `source`.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_categories', 'shop_id', 'The shop (marketplace_shops.shop_id; `shopid` in the API).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_categories', 'item_id', 'The product (the `itemid` of its URL).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_categories', 'source', 'Which list: ''item.categories'', ''item.fe_categories'' or ''product_attributes.categories''.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_categories', 'list_index', 'Position in that list (the category path, top first).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_categories', 'catid', 'Category id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_categories', 'display_name', 'Category name.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_categories', 'no_sub', 'The category has no subcategories.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_categories', 'is_default_subcat', 'Default subcategory.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_categories', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_categories', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_categories', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_categories', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_categories', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', '', 'A product''s tier variations (e.g. colour, size): one row per tier, its options in marketplace_product_tier_variation_options.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', 'shop_id', 'The shop (marketplace_shops.shop_id; `shopid` in the API).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', 'item_id', 'The product (the `itemid` of its URL).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', 'tier_index', 'Position of the tier.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', 'name', 'Tier name (e.g. "Colour").') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', 'type', 'Tier type code.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', 'option_count', 'Number of options.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', 'images', 'Image keys per option, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', 'properties', 'Tier properties, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', 'summed_stocks', 'Stock per option, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', 'display_indicators', 'Display indicators, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variations', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variation_options', '', 'The options of a tier variation, one row each.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variation_options', 'shop_id', 'The shop (marketplace_shops.shop_id; `shopid` in the API).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variation_options', 'item_id', 'The product (the `itemid` of its URL).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variation_options', 'tier_index', 'The tier (marketplace_product_tier_variations.tier_index).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variation_options', 'option_index', 'Position of the option in the tier.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variation_options', 'option', 'Option text (e.g. "Red").') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variation_options', 'image', 'The option''s image key.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variation_options', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variation_options', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variation_options', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variation_options', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_tier_variation_options', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_images', '', 'A product''s images, in order.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_images', 'shop_id', 'The shop (marketplace_shops.shop_id; `shopid` in the API).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_images', 'item_id', 'The product (the `itemid` of its URL).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_images', 'list_index', 'Position of the image.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_images', 'image', 'Image key.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_images', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_images', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_images', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_images', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_product_images', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', '', 'One row per shop seen in marketplace answers (the newest answer wins).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'shop_id', 'The shop id (`shopid` in the API).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'userid', 'The shop owner''s user id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'name', 'Shop name.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'username', 'The owner''s username.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'place', 'Place text.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'shop_location', 'Location text.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'last_active_time', 'Last activity, epoch seconds (see last_active_time_at).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'ctime', 'Shop creation, epoch seconds (see ctime_at).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'vacation', 'The shop is on vacation.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'status', 'Shop status code.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'is_shopee_verified', 'Verified shop.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'is_preferred_plus_seller', 'Preferred-plus seller.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'is_official_shop', 'Official shop.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'is_individual_seller', 'Individual seller.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'is_mart', 'Mart shop.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'item_count', 'Number of products.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'rating_star', 'Average rating (0-5).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'rating_bad', 'Number of bad ratings.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'rating_good', 'Number of good ratings.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'rating_normal', 'Number of normal ratings.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'response_rate', 'Chat response rate, percent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'response_time', 'Chat response time, seconds.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'follower_count', 'Followers.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'sold_total', 'Units sold, all time.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'last_active_time_at', 'last_active_time as a timestamp (UTC).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'ctime_at', 'ctime as a timestamp (UTC).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_shops', 'last_seen_at', 'When the last run that saw the row loaded it (UTC), whether or not the row changed: the freshness of the row. loaded_at is when it last changed. NULL only on rows no run has seen since the column was added.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', '', 'Append-only: a row whenever a product''s price (model_id NULL) or a model''s price differs from the previous load, the first load included. The current price is the row with the highest id per (pipeline, shop_id, item_id, model_id).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'id', 'Generated id, increasing in load order.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'shop_id', 'The shop (marketplace_shops.shop_id; `shopid` in the API).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'item_id', 'The product (the `itemid` of its URL).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'model_id', 'The model whose price changed; NULL for the product''s own price.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'price', 'The new price. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'price_min', 'The new lowest model price (product rows). Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'price_max', 'The new highest model price (product rows). Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'price_before_discount', 'The new price before discount. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'price_major', 'The new price in major units (price / price_divisor).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'previous_price', 'The price before this change; NULL for the first price seen. Integer as the service sends it, in minor units (divide by price_divisor); -1 means absent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'currency', 'Currency code.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'pipeline', 'The pipeline (its `name:`) whose run wrote the row; every natural key starts with it, so pipelines never overwrite each other.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'load_id', 'raw_responses.id of the response whose load last CHANGED the row (an identical reload keeps it).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'loaded_at', 'When the load that last changed the row ran (UTC). It does not move when a run sees the row unchanged: pipeline_freshness.last_seen_at says when a pipeline last loaded (pipeline_runs.seen_by_table what its runs saw).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'row_hash', 'SHA-1 of the row''s data columns; a load rewrites the row only when it differs.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'workflow_id', 'The run whose load found the change (pipeline_runs.workflow_id); NULL on rows older than the column.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('marketplace_price_history', 'previous_price_major', 'previous_price in major units; NULL for the first price and on rows older than the column.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('schema_history', '', 'Every table and column the loader created at run time (inferred <pipeline>_items tables and columns added to model tables): the change history, and the registry mapping a content key to its column.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('schema_history', 'table_name', 'The table.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('schema_history', 'column_name', 'The column.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('schema_history', 'data_type', 'Logical type: bigint, double, bool, text, timestamp, json or number_text (a number no SQL type holds exactly, as text).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('schema_history', 'change', '''create_table'' (the columns a new table starts with), ''add_column'' (a new field) or ''add_variant'' (a value that did not fit the column''s type).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('schema_history', 'variant_of', 'For a variant column: the column whose type the values did not fit.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('schema_history', 'pipeline', 'The pipeline whose load made the change.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('schema_history', 'load_id', 'The load that made it (raw_responses.id).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('schema_history', 'changed_at', 'When (UTC).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('schema_history', 'source_key', 'The original key path the column holds (JSON array), or a table''s list path.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('schema_history', 'root_table', 'The content root table (<pipeline>_items) a content table belongs to; NULL for model tables.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('rejected_results', '', 'Results a load could not write (nested too deep, merge key missing, over a limit): the rest of their response loaded and the run ended partial. The result itself is in raw_responses.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('rejected_results', 'id', 'Generated id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('rejected_results', 'pipeline', 'The pipeline.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('rejected_results', 'load_id', 'The response that carried the result (raw_responses.id).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('rejected_results', 'workflow_id', 'The run.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('rejected_results', 'result_id', 'The result id (decimal text: 64-bit).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('rejected_results', 'scraping_run_id', 'Its scraping run (decimal text).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('rejected_results', 'table_name', 'The table it was meant for.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('rejected_results', 'reason', 'Why it was rejected.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('rejected_results', 'rejected_at', 'When (UTC).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('export_watermarks', '', 'The highest load id each pipeline exported per table: an incremental export takes the rows above it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('export_watermarks', 'pipeline', 'The pipeline.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('export_watermarks', 'table_name', 'The table exported.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('export_watermarks', 'last_load_id', 'The highest load id exported.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('export_watermarks', 'exported_at', 'When (UTC).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('export_watermarks', 'last_run', 'The run that moved the watermark last.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('export_watermarks', 'last_file', 'The file it wrote.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('export_watermarks', 'last_rows', 'Rows in that file.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('sync_watermarks', '', 'Where each incremental `results` sync resumes: the highest result id of its last complete pass.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('sync_watermarks', 'pipeline', 'The pipeline.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('sync_watermarks', 'stream', 'The stream synced.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('sync_watermarks', 'watermark', 'The highest result id of the last complete pass (decimal text).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('sync_watermarks', 'updated_at', 'When it moved (UTC).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('notify_deliveries', '', 'Webhook deliveries the receiver accepted (2xx), one per run, event and webhook, so a retried alert is not sent twice.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('notify_deliveries', 'workflow_id', 'The run.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('notify_deliveries', 'run_id', 'First run id of the workflow execution chain.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('notify_deliveries', 'event', 'The alert event (succeeded, failed, partial, price_drop, …).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('notify_deliveries', 'target', 'Hash of the webhook''s URL template and format (never the URL, which may hold a secret).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('notify_deliveries', 'http_status', 'The receiver''s HTTP status.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('notify_deliveries', 'sent_at', 'When (UTC).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('check_results', '', 'The outcome of every data check (`checks:`) per run, or per `scrape-etl check` / freshness evaluation.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('check_results', 'id', 'Generated id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('check_results', 'pipeline', 'The pipeline.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('check_results', 'workflow_id', 'The run, or check:<time> / freshness:<time> for evaluations without a run.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('check_results', 'check_name', 'The check''s name.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('check_results', 'check_type', 'row_count, not_null, null_rate, unique, accepted_values, range, sql, freshness or schema.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('check_results', 'severity', '''error'' (a failure ends the run failed_checks) or ''warn'' (an alert only).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('check_results', 'status', '''pass'', ''fail'', ''error'' (could not be evaluated) or ''skipped''.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('check_results', 'observed', 'What was observed, as shown to people.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('check_results', 'observed_value', 'The observed figure as a number (a rate in %, a count, an age in seconds).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('check_results', 'threshold', 'The threshold, as shown to people.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('check_results', 'failing_keys', 'A sample of the failing rows'' keys, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('check_results', 'message', 'Explanation.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('check_results', 'checked_at', 'When (UTC).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('watch_events', '', 'The events a watch (`watch:`) found in one run, computed once.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('watch_events', 'workflow_id', 'The run.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('watch_events', 'watch', 'The watch.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('watch_events', 'pipeline', 'The pipeline.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('watch_events', 'event', 'price_drop, price_rise, back_in_stock, out_of_stock or new_rows.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('watch_events', 'row_count', 'Rows that triggered it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('watch_events', 'rows', 'The triggering rows, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('watch_events', 'created_at', 'When (UTC).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('watch_state', '', 'What each watch last saw of each item.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('watch_state', 'pipeline', 'The pipeline.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('watch_state', 'watch', 'The watch.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('watch_state', 'item_key', 'The item''s key.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('watch_state', 'state', 'What was seen (in stock or not; present).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('watch_state', 'updated_at', 'When (UTC).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('spend_calls', '', 'Every billable call to the scraping service, recorded before it is sent, in the transaction that checks the budget''s limits (docs/budgets.md): what spend control counts.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('spend_calls', 'call_key', 'What makes a call unique: workflow, activity, attempt and its execution, URL or create, and client attempt.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('spend_calls', 'pipeline', 'The pipeline whose run made the call.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('spend_calls', 'project', 'The project file (its path) whose budget also counts this call; NULL outside a budgeted project.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('spend_calls', 'workflow_id', 'The Temporal workflow id of the run.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('spend_calls', 'endpoint', '`METHOD /path` of the call.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('spend_calls', 'request_key', 'The URL of a synchronous call, ''create-and-run'' for a create.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('spend_calls', 'creates_scraper', 'Whether the call creates a scraper (create-and-run).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('spend_calls', 'called_at', 'When the call was recorded (UTC), just before it was sent.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('spend_calls', 'tokens', 'The `tokenUsage` its answer reported; NULL until it arrives or when the answer reports none.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('url_lists', '', 'URL lists of job-board and marketplace runs, in chunks (a list too long for a workflow input).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('url_lists', 'list_id', 'SHA-256 of the list.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('url_lists', 'chunk_index', 'Position of the chunk.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('url_lists', 'urls', 'The chunk''s URLs in order, as JSON (Postgres json, DuckDB JSON, SQLite text): the text as written, bigint-safe and byte-identical on every destination; cast to jsonb (Postgres) to compare, group or index it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('url_lists', 'created_at', 'When stored (UTC).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_freshness', '', 'When each pipeline last loaded: one row per pipeline, moved by every run that finished its load (succeeded, partial, failed_checks) whether or not a row changed. dbt''s source freshness reads it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_freshness', 'pipeline', 'The pipeline.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_freshness', 'last_seen_at', 'When its last run that finished its load ended (UTC): every row it saw was seen then.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_freshness', 'loaded_runs', 'How many of its runs finished their load.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('results_landed', '', 'Every result record once: pdf_results, leads_results and scraper_results together, with the `results` sync''s copies of a result another pipeline landed marked `is_copy` (count `WHERE NOT is_copy`).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('results_landed', 'result_table', 'The table the row is in.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('results_landed', 'pipeline', 'The pipeline that landed it.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('results_landed', 'id', 'The service''s result id.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('results_landed', 'scraping_run_id', 'Its scraping run.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('results_landed', 'scraper_name', 'The scraper''s name.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('results_landed', 'status', 'The result''s status.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('results_landed', 'created_at', 'When the service created it. An instant from the service''s ISO 8601 text: timestamptz in Postgres and DuckDB, ISO 8601 UTC text in SQLite (`2022-11-20T11:54:52.000Z`); NULL when the service sent something that is not a timestamp (raw_responses keeps it, the run''s log says so).') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
--> statement-breakpoint
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('results_landed', 'is_copy', 'True for a scraper_results row whose result (same id) is also in pdf_results or leads_results.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
