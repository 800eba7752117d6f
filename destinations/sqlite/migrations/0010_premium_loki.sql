ALTER TABLE `pipeline_runs` ADD `alert_status` text;--> statement-breakpoint
ALTER TABLE `pipeline_runs` ADD `alert_error` text;