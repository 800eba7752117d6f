CREATE TABLE `rejected_results` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`pipeline` text NOT NULL,
	`load_id` integer NOT NULL,
	`workflow_id` text,
	`result_id` text NOT NULL,
	`scraping_run_id` text,
	`table_name` text NOT NULL,
	`reason` text NOT NULL,
	`rejected_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rejected_results_load_result_uq` ON `rejected_results` (`load_id`,`result_id`);--> statement-breakpoint
CREATE INDEX `rejected_results_pipeline_idx` ON `rejected_results` (`pipeline`);--> statement-breakpoint
CREATE INDEX `rejected_results_workflow_idx` ON `rejected_results` (`workflow_id`);--> statement-breakpoint
ALTER TABLE `schema_history` ADD `source_key` text;--> statement-breakpoint
ALTER TABLE `schema_history` ADD `root_table` text;--> statement-breakpoint
CREATE INDEX `schema_history_root_table_idx` ON `schema_history` (`root_table`);