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
ALTER TABLE `pipeline_runs` ADD `status_reason` text;