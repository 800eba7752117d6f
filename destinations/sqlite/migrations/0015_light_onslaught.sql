CREATE TABLE `spend_calls` (
	`call_key` text PRIMARY KEY NOT NULL,
	`pipeline` text NOT NULL,
	`project` text,
	`workflow_id` text NOT NULL,
	`endpoint` text NOT NULL,
	`request_key` text NOT NULL,
	`creates_scraper` integer NOT NULL,
	`called_at` text NOT NULL,
	`tokens` integer
);
--> statement-breakpoint
CREATE INDEX `spend_calls_pipeline_idx` ON `spend_calls` (`pipeline`,`called_at`);--> statement-breakpoint
CREATE INDEX `spend_calls_project_idx` ON `spend_calls` (`project`,`called_at`);--> statement-breakpoint
CREATE INDEX `spend_calls_workflow_idx` ON `spend_calls` (`workflow_id`);--> statement-breakpoint
ALTER TABLE `pipeline_runs` ADD `status_reason` text;;
--> statement-breakpoint
-- Their descriptions (db/schema/descriptions.ts), as 0014_warehouse_docs keeps every other one.
INSERT INTO "scrape_etl_comments" (table_name, column_name, comment) VALUES ('pipeline_runs', 'status_reason', 'Why the run ended as it did when its status alone does not say: ''budget'' (a budget limit stopped its calls, docs/budgets.md); NULL otherwise.') ON CONFLICT (table_name, column_name) DO UPDATE SET comment = excluded.comment;
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
