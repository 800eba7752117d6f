CREATE TABLE `check_results` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`pipeline` text NOT NULL,
	`workflow_id` text NOT NULL,
	`check_name` text NOT NULL,
	`check_type` text NOT NULL,
	`severity` text NOT NULL,
	`status` text NOT NULL,
	`observed` text,
	`observed_value` real,
	`threshold` text,
	`failing_keys` text,
	`message` text,
	`checked_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `check_results_run_check_uq` ON `check_results` (`workflow_id`,`check_name`);--> statement-breakpoint
CREATE INDEX `check_results_pipeline_idx` ON `check_results` (`pipeline`,`check_name`,`checked_at`);--> statement-breakpoint
CREATE TABLE `watch_events` (
	`workflow_id` text NOT NULL,
	`watch` text NOT NULL,
	`pipeline` text NOT NULL,
	`event` text NOT NULL,
	`row_count` integer NOT NULL,
	`rows` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`workflow_id`, `watch`)
);
--> statement-breakpoint
CREATE TABLE `watch_state` (
	`pipeline` text NOT NULL,
	`watch` text NOT NULL,
	`item_key` text NOT NULL,
	`state` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`pipeline`, `watch`, `item_key`)
);
--> statement-breakpoint
ALTER TABLE `marketplace_price_history` ADD `workflow_id` text;--> statement-breakpoint
ALTER TABLE `marketplace_price_history` ADD `previous_price_major` real;