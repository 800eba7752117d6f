CREATE TABLE `notify_deliveries` (
	`workflow_id` text NOT NULL,
	`run_id` text NOT NULL,
	`event` text NOT NULL,
	`target` text NOT NULL,
	`http_status` integer NOT NULL,
	`sent_at` text NOT NULL,
	PRIMARY KEY(`workflow_id`, `run_id`, `event`, `target`)
);
--> statement-breakpoint
ALTER TABLE `pipeline_runs` ADD `token_usage` integer;--> statement-breakpoint
ALTER TABLE `raw_responses` ADD `token_usage` integer;